import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Person } from '../domain/persons';
import { documentClient } from './client';
import { keys, personShards } from './keys';
import { partitionValues } from './operations';
import { readPersons } from './persons';

/**
 * The persons of a project, newest first, without a scan (keys.ts): one listing item per person,
 * written once when the person is created, in one of `personShards` partitions. A page queries every
 * shard from the cursor for at most `limit` items, merges them and keeps the newest `limit`, then
 * reads those persons: its cost depends on the page size, never on the project's size.
 */

export interface PersonListingItem {
  PK: string;
  SK: string;
  person: string;
}

/** The listing item of a person just created (written before the person, so a replay finds it). */
export function personListingItem(projectId: number, person: Pick<Person, 'uuid' | 'createdAt'>) {
  return { ...keys.personListing(projectId, person.createdAt, person.uuid), person: person.uuid };
}

/** A position in the listing: the sort key of an item (`<created_at>#<uuid>`). */
export type ListingPosition = string;

export interface ListingEntry {
  readonly uuid: string;
  readonly position: ListingPosition;
}

export interface ListingPage {
  /** Newest first (or oldest first when reading `after`). */
  readonly entries: ListingEntry[];
  /** Whether any shard holds more items beyond the last entry. */
  readonly more: boolean;
}

export interface ListingRead {
  readonly limit: number;
  /** Newest first, strictly older than this position. */
  readonly before?: ListingPosition;
  /** Oldest first, strictly newer than this position (a previous page, read backwards). */
  readonly after?: ListingPosition;
}

async function readShard(
  tableName: string,
  partition: string,
  read: ListingRead,
): Promise<{ items: PersonListingItem[]; more: boolean }> {
  const bound = read.after ?? read.before;
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: bound ? `PK = :pk AND SK ${read.after ? '>' : '<'} :bound` : 'PK = :pk',
      ExpressionAttributeValues: {
        ':pk': partition,
        ...(bound ? { ':bound': bound } : {}),
      },
      ScanIndexForward: read.after !== undefined,
      Limit: read.limit,
    }),
  );
  return { items: (result.Items ?? []) as PersonListingItem[], more: result.LastEvaluatedKey !== undefined };
}

/** What one shard gave a page: at least `limit` entries beyond the bound (any order) unless it has no more. */
export interface ShardListing {
  readonly entries: readonly ListingEntry[];
  readonly more: boolean;
}

/** The page of a sharded listing: the shards' entries in the read's direction, the first `limit` of them. */
export function mergeShardListings(shards: readonly ShardListing[], read: ListingRead): ListingPage {
  const all = shards.flatMap((shard) => shard.entries);
  const oldestFirst = read.after !== undefined;
  all.sort((a, b) => (a.position === b.position ? 0 : a.position < b.position === oldestFirst ? -1 : 1));
  return {
    entries: all.slice(0, read.limit),
    more: all.length > read.limit || shards.some((shard) => shard.more),
  };
}

/**
 * One page of a sharded listing of persons (items with a `person` attribute, ordered by sort key):
 * the shards read in parallel and merged.
 */
export async function readListingPage(
  tableName: string,
  partitions: readonly string[],
  read: ListingRead,
): Promise<ListingPage> {
  const shards = await Promise.all(partitions.map((partition) => readShard(tableName, partition, read)));
  return mergeShardListings(
    shards.map((shard) => ({
      entries: shard.items.map((item) => ({ uuid: item.person, position: item.SK })),
      more: shard.more,
    })),
    read,
  );
}

/** The partitions of a project's person listing. */
export const personListingPartitions = (projectId: number): string[] =>
  Array.from({ length: personShards }, (_, shard) => keys.personListingPartition(projectId, shard));

/** The live persons of `uuids` by uuid: merged persons and uuids without a person are left out. */
export async function livePersonsOf(
  tableName: string,
  projectId: number,
  uuids: readonly string[],
): Promise<Map<string, Person>> {
  const found = await readPersons(tableName, projectId, uuids, false);
  return new Map([...found].filter(([, person]) => person.mergedInto === undefined));
}

/** Every person uuid of one listing shard, `size` at a time. */
export async function* listingShardChunks(
  tableName: string,
  partition: string,
  size: number,
): AsyncGenerator<string[]> {
  let chunk: string[] = [];
  for await (const uuid of partitionValues(tableName, partition, 'person')) {
    chunk.push(uuid);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}
