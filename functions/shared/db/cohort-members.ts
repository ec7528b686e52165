import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './client';
import { keys, personShards } from './keys';
import { batchDeleteAll, batchGetItems, batchPutEvery, queryItems } from './operations';
import type { ListingEntry, ListingPage, ListingRead, ShardListing } from './person-listing';
import { mergeShardListings } from './person-listing';

/**
 * Cohort membership (keys.ts), spread over `personShards` partitions by the person's uuid as the
 * person listing is, in two kinds of item:
 * - **member pages**, written by the calculation: per shard, one item per first two characters of
 *   the members' uuids (`SK = #<2 chars>`), its members as a string set. Person uuids are
 *   hash-derived, so a cohort's members spread evenly over up to 4,096 pages: 100,000 members are
 *   4,096 items of about 24 members (1 KB each) rather than 100,000 items;
 * - **member items**, one per member (`SK = <uuid>`, `person`): a static cohort's uploaded members,
 *   and the members of a dynamic cohort last calculated before member pages existed (its next
 *   calculation replaces them with pages).
 * A person is a member when either kind holds it. A member check is one BatchGetItem of both keys;
 * a page of members two Queries per shard from a cursor; a calculation reads a shard's membership
 * once and writes only the pages whose members change.
 */

export const cohortMemberPartitions = (projectId: number, cohortId: number): string[] =>
  Array.from({ length: personShards }, (_, shard) => keys.cohortMembersPartition(projectId, cohortId, shard));

function cohortMemberItem(projectId: number, cohortId: number, personUuid: string) {
  return { ...keys.cohortMember(projectId, cohortId, personUuid), person: personUuid };
}

interface StoredMembership {
  readonly PK: string;
  readonly SK: string;
  /** A member item's member. */
  readonly person?: string;
  /** A member page's members. */
  readonly members?: ReadonlySet<string>;
}

/** One shard's stored membership: its member pages by sort key, and the members of its member items. */
export interface ShardMembership {
  readonly pages: ReadonlyMap<string, ReadonlySet<string>>;
  readonly items: ReadonlySet<string>;
}

/** Every member item and page of one shard (one Query, pages of 1 MB). */
export async function readShardMembership(tableName: string, partition: string): Promise<ShardMembership> {
  const pages = new Map<string, ReadonlySet<string>>();
  const items = new Set<string>();
  for await (const item of queryItems({
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': partition },
    ProjectionExpression: 'SK, person, #m',
    ExpressionAttributeNames: { '#m': 'members' },
  })) {
    const stored = item as unknown as StoredMembership;
    if (stored.members) pages.set(stored.SK, stored.members);
    else if (stored.person !== undefined) items.add(stored.person);
  }
  return { pages, items };
}

/** The members a shard's stored membership holds (a member in a page and an item counts once). */
export function membersOf(shard: ShardMembership): Set<string> {
  const members = new Set(shard.items);
  for (const page of shard.pages.values()) for (const uuid of page) members.add(uuid);
  return members;
}

/** The members of one shard. */
async function readShardMembers(tableName: string, partition: string): Promise<Set<string>> {
  return membersOf(await readShardMembership(tableName, partition));
}

/** Every member's uuid (a static cohort's count, a calculation's nested static cohorts): shards in parallel. */
export async function readAllMembers(
  tableName: string,
  projectId: number,
  cohortId: number,
): Promise<Set<string>> {
  const shards = await Promise.all(
    cohortMemberPartitions(projectId, cohortId).map((partition) => readShardMembers(tableName, partition)),
  );
  return new Set(shards.flatMap((shard) => [...shard]));
}

/** What makes a shard's stored membership exactly a set of members. */
interface ShardWrites {
  /** Member pages whose members change, whole. */
  readonly puts: { PK: string; SK: string; members: Set<string> }[];
  /** Member pages left with no member, and every member item (its member is in a page now). */
  readonly deletes: { PK: string; SK: string }[];
}

/**
 * The writes that leave the shard `partition` holding exactly `members` (all of that shard), in
 * member pages: a page whose members are unchanged is not written, so an unchanged recalculation
 * writes nothing.
 */
export function shardWrites(
  partition: string,
  stored: ShardMembership,
  members: ReadonlySet<string>,
): ShardWrites {
  const wanted = new Map<string, Set<string>>();
  for (const uuid of members) {
    const sortKey = keys.cohortMemberPageSortKey(uuid);
    const page = wanted.get(sortKey);
    if (page) page.add(uuid);
    else wanted.set(sortKey, new Set([uuid]));
  }
  const puts: ShardWrites['puts'] = [];
  for (const [sortKey, page] of wanted) {
    const before = stored.pages.get(sortKey);
    const unchanged = before?.size === page.size && [...page].every((uuid) => before.has(uuid));
    if (!unchanged) puts.push({ PK: partition, SK: sortKey, members: page });
  }
  const deletes: ShardWrites['deletes'] = [];
  for (const sortKey of stored.pages.keys())
    if (!wanted.has(sortKey)) deletes.push({ PK: partition, SK: sortKey });
  for (const uuid of stored.items) deletes.push({ PK: partition, SK: uuid });
  return { puts, deletes };
}

/**
 * Writes a shard's pages, then deletes what they replace: interrupted in between, the shard holds a
 * member twice at worst (readers count it once), never loses one; the next calculation finishes it.
 * Throws the first error of a page that could not be written.
 */
export async function writeShard(tableName: string, writes: ShardWrites): Promise<void> {
  await batchPutEvery(
    tableName,
    writes.puts.map((item) => ({ item, tag: item.SK })),
    8,
  );
  await batchDeleteAll(tableName, writes.deletes, 8);
}

/** Adds member items (a static cohort's upload; idempotent); throws the first error if any could not be written. */
export async function addMembers(
  tableName: string,
  projectId: number,
  cohortId: number,
  personUuids: Iterable<string>,
): Promise<void> {
  const puts = [...personUuids].map((uuid) => ({
    item: cohortMemberItem(projectId, cohortId, uuid),
    tag: uuid,
  }));
  await batchPutEvery(tableName, puts, 8);
}

/** Which of `cohortIds` hold the person: one BatchGetItem of each cohort's member item and member page. */
export async function cohortsHolding(
  tableName: string,
  projectId: number,
  cohortIds: readonly number[],
  personUuid: string,
): Promise<Set<number>> {
  if (cohortIds.length === 0) return new Set();
  const cohortOf = new Map<string, number>();
  for (const id of cohortIds) cohortOf.set(keys.cohortMember(projectId, id, personUuid).PK, id);
  const found = await batchGetItems<StoredMembership>(
    tableName,
    cohortIds.flatMap((id) => [
      keys.cohortMember(projectId, id, personUuid),
      keys.cohortMemberPage(projectId, id, personUuid),
    ]),
    false,
    { expression: 'PK, person, #m', names: { '#m': 'members' } },
  );
  const holding = new Set<number>();
  for (const item of found)
    if (item.person === personUuid || item.members?.has(personUuid)) holding.add(cohortOf.get(item.PK)!);
  return holding;
}

/** Sort keys from `lo` to `hi`, both included. */
interface KeyRange {
  readonly lo: string;
  readonly hi: string;
}

/** The range from `lo` to `hi`, or undefined when no key lies within it (DynamoDB refuses lo > hi). */
const keyRange = (lo: string, hi: string): KeyRange | undefined =>
  Buffer.compare(Buffer.from(lo), Buffer.from(hi)) > 0 ? undefined : { lo, hi };

/** One Query of a shard's items within `range`, in the read's direction. */
async function queryRange(
  tableName: string,
  partition: string,
  range: KeyRange,
  read: ListingRead,
  limit: number,
  start?: Record<string, unknown>,
): Promise<{ items: StoredMembership[]; next?: Record<string, unknown> }> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
      ExpressionAttributeValues: { ':pk': partition, ':lo': range.lo, ':hi': range.hi },
      ProjectionExpression: 'SK, person, #m',
      ExpressionAttributeNames: { '#m': 'members' },
      ScanIndexForward: read.after !== undefined,
      Limit: limit,
      ExclusiveStartKey: start,
    }),
  );
  return { items: (result.Items ?? []) as StoredMembership[], next: result.LastEvaluatedKey };
}

/** Up to `limit` members of one shard's member items beyond the read's bound, in its direction. */
async function memberItemsBeyond(
  tableName: string,
  partition: string,
  read: ListingRead,
): Promise<ShardListing> {
  const { last } = keys.cohortMemberPagesRange;
  // Newest first is descending: below `before` (a BETWEEN includes it, so one more is read), down to the pages.
  const range =
    read.after !== undefined ? keyRange(read.after, '\uffff') : keyRange(last, read.before ?? '\uffff');
  if (!range) return { entries: [], more: false };
  const { items, next } = await queryRange(tableName, partition, range, read, read.limit + 1);
  const entries: ListingEntry[] = [];
  for (const item of items)
    if (item.person !== undefined && item.SK !== read.after && item.SK !== read.before)
      entries.push({ uuid: item.person, position: item.SK });
  return { entries, more: next !== undefined };
}

/** Pages read by a listing's first Query of a shard; each next Query reads twice as many. */
const firstPagesRead = 8;

/** At least `limit` members of one shard's member pages beyond the read's bound (all if fewer), in its direction. */
async function pageMembersBeyond(
  tableName: string,
  partition: string,
  read: ListingRead,
): Promise<ShardListing> {
  const { first, last } = keys.cohortMemberPagesRange;
  const range =
    read.after !== undefined
      ? keyRange(keys.cohortMemberPageSortKey(read.after), last)
      : keyRange(first, read.before === undefined ? last : keys.cohortMemberPageSortKey(read.before));
  if (!range) return { entries: [], more: false };
  const beyond = (uuid: string): boolean =>
    read.after !== undefined ? uuid > read.after : read.before === undefined || uuid < read.before;
  const entries: ListingEntry[] = [];
  let start: Record<string, unknown> | undefined;
  for (let pages = firstPagesRead; ; pages *= 2) {
    const { items, next } = await queryRange(tableName, partition, range, read, pages, start);
    for (const item of items)
      for (const uuid of item.members ?? []) if (beyond(uuid)) entries.push({ uuid, position: uuid });
    start = next;
    if (!start || entries.length >= read.limit) return { entries, more: start !== undefined };
  }
}

/**
 * One page of a cohort's members, by uuid (`before`: descending), as `readListingPage` reads a person
 * listing: each shard's member pages and member items read in parallel, merged.
 */
export async function readMembersPage(
  tableName: string,
  partitions: readonly string[],
  read: ListingRead,
): Promise<ListingPage> {
  const shards = await Promise.all(
    partitions.map(async (partition) => {
      const [items, pages] = await Promise.all([
        memberItemsBeyond(tableName, partition, read),
        pageMembersBeyond(tableName, partition, read),
      ]);
      // A member both in a page and in an item (a calculation interrupted between the two) once.
      const seen = new Set(pages.entries.map((entry) => entry.uuid));
      return {
        entries: [...pages.entries, ...items.entries.filter((entry) => !seen.has(entry.uuid))],
        more: items.more || pages.more,
      };
    }),
  );
  return mergeShardListings(shards, read);
}
