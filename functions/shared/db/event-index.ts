import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { documentClient } from './client';
import { keys } from './keys';

/**
 * Time-ordered index pages over the events table.
 *
 * Why: an event item is keyed by (project, uuid) so that retries, beacons and SQS redeliveries
 * collapse into one item; a time-ordered key cannot do that, because a retried request gets a
 * different receive time and so a different corrected timestamp. Instead of a GSI per access pattern
 * (each GSI costs another write unit per event), the consumer writes, per consumed SQS message, one
 * small page per index value listing that message's events as `<timestamp> <uuid>` lines.
 *
 * Layout: PK = I#<project>#<index>#<shard>#<value>, SK = <max timestamp>#<page id>.
 * - A page holds events of one minute only (a message's events are split by minute), so a page
 *   whose max timestamp is ≥ the end of a minute holds nothing earlier than that minute.
 * - Writes of a busy project spread over `shards` partitions (chosen by page id), merged on read.
 * - The page id starts with the SQS message id, and the event item records it as its owner (`msg`):
 *   when two messages carry the same uuid, both list it but only the owner's entry is valid.
 *
 * Reading newest first: pages come back by max timestamp descending from every shard; the reader
 * stops as soon as it holds `limit` entries newer than any page not yet read. Cost ∝ the page size.
 */

export interface IndexSpec {
  readonly name: string;
  readonly shards: number;
}

/** The indexes every event is listed in. */
export const eventIndexes = {
  all: { name: 'all', shards: 4 },
  event: { name: 'event', shards: 4 },
  distinctId: { name: 'distinct_id', shards: 1 },
} as const satisfies Record<string, IndexSpec>;

export interface IndexEntry {
  readonly timestamp: string;
  readonly uuid: string;
}

export interface IndexedEntry extends IndexEntry {
  /** The message that listed it: valid only if the event item's owner is that message. */
  readonly owner: string;
}

export interface IndexPageItem {
  PK: string;
  SK: string;
  owner: string;
  min: string;
  max: string;
  entries: string;
}

/** Newest first: timestamp descending, then uuid descending. */
export function compareNewestFirst(a: IndexEntry, b: IndexEntry): number {
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp ? 1 : -1;
  if (a.uuid === b.uuid) return 0;
  return a.uuid < b.uuid ? 1 : -1;
}

const minuteOf = (timestamp: string): string => timestamp.slice(0, 16);

function shardFor(pageOwner: string, shards: number): number {
  if (shards <= 1) return 0;
  return createHash('sha1').update(pageOwner).digest().readUInt32BE(0) % shards;
}

/**
 * The index pages one message's events produce: one page per (index value, minute).
 * `owner` is the SQS message id; pages written again on redelivery get the same keys (idempotent).
 */
export function buildIndexPages(
  projectId: number,
  index: IndexSpec,
  owner: string,
  entriesByValue: ReadonlyMap<string, readonly IndexEntry[]>,
): IndexPageItem[] {
  const shard = shardFor(owner, index.shards);
  const pages: IndexPageItem[] = [];
  for (const [value, entries] of entriesByValue) {
    const byMinute = new Map<string, IndexEntry[]>();
    for (const entry of entries) {
      const minute = minuteOf(entry.timestamp);
      const bucket = byMinute.get(minute) ?? [];
      bucket.push(entry);
      byMinute.set(minute, bucket);
    }
    for (const [minute, bucket] of byMinute) {
      bucket.sort(compareNewestFirst);
      const max = bucket[0]!.timestamp;
      const min = bucket[bucket.length - 1]!.timestamp;
      pages.push({
        PK: keys.indexPartition(projectId, index.name, shard, value),
        SK: keys.indexPageSortKey(max, `${owner}#${minute}`),
        owner,
        min,
        max,
        entries: bucket.map((e) => `${e.timestamp} ${e.uuid}`).join('\n'),
      });
    }
  }
  return pages;
}

export interface ReadBounds {
  /** Only entries strictly before this point (timestamp, then uuid for ties). */
  readonly before?: { readonly timestamp: string; readonly uuid?: string };
  /** Only entries strictly after this timestamp. */
  readonly after?: string;
}

function isBefore(entry: IndexEntry, bound: ReadBounds['before']): boolean {
  if (!bound) return true;
  if (entry.timestamp !== bound.timestamp) return entry.timestamp < bound.timestamp;
  return bound.uuid !== undefined && entry.uuid < bound.uuid;
}

/** End of the minute that holds `timestamp`: pages with a larger max hold nothing before it. */
function minuteEnd(timestamp: string): string {
  const start = Date.parse(`${minuteOf(timestamp)}:00.000Z`);
  return new Date(start + 60_000).toISOString();
}

/** Pages of one partition, newest max timestamp first, fetched lazily. */
class PageStream {
  private buffer: IndexPageItem[] = [];
  private lastKey: Record<string, unknown> | undefined;
  private done = false;

  constructor(
    private readonly tableName: string,
    private readonly partition: string,
    private readonly upperBound: string | undefined,
    private readonly pageSize: number,
  ) {}

  async peek(): Promise<IndexPageItem | undefined> {
    if (this.buffer.length === 0 && !this.done) await this.fetch();
    return this.buffer[0];
  }

  take(): IndexPageItem | undefined {
    return this.buffer.shift();
  }

  private async fetch(): Promise<void> {
    const result = await documentClient.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: this.upperBound ? 'PK = :pk AND SK < :upper' : 'PK = :pk',
        ExpressionAttributeValues: {
          ':pk': this.partition,
          ...(this.upperBound ? { ':upper': this.upperBound } : {}),
        },
        ScanIndexForward: false,
        Limit: this.pageSize,
        ExclusiveStartKey: this.lastKey,
      }),
    );
    this.buffer.push(...((result.Items ?? []) as IndexPageItem[]));
    this.lastKey = result.LastEvaluatedKey;
    if (!this.lastKey) this.done = true;
  }
}

/**
 * The newest `limit` entries of one index value within the bounds, merged over its shards.
 * Entries are candidates: the caller checks each against its event item's owner.
 */
export async function readNewestEntries(
  tableName: string,
  projectId: number,
  index: IndexSpec,
  value: string,
  limit: number,
  bounds: ReadBounds = {},
): Promise<IndexedEntry[]> {
  const upperBound = bounds.before ? minuteEnd(bounds.before.timestamp) : undefined;
  const streams = Array.from(
    { length: index.shards },
    (_, shard) =>
      new PageStream(
        tableName,
        keys.indexPartition(projectId, index.name, shard, value),
        upperBound,
        Math.min(100, limit + 5),
      ),
  );
  const candidates: IndexedEntry[] = [];
  await Promise.all(streams.map((stream) => stream.peek()));
  for (;;) {
    let newest: { stream: PageStream; page: IndexPageItem } | undefined;
    for (const stream of streams) {
      const page = await stream.peek();
      if (page && (!newest || page.max > newest.page.max)) newest = { stream, page };
    }
    if (!newest) break;
    if (bounds.after !== undefined && newest.page.max <= bounds.after) break;
    const kth = candidates.length >= limit ? candidates[limit - 1] : undefined;
    if (kth && newest.page.max < kth.timestamp) break;
    newest.stream.take();
    for (const line of newest.page.entries.split('\n')) {
      const space = line.indexOf(' ');
      const entry = {
        timestamp: line.slice(0, space),
        uuid: line.slice(space + 1),
        owner: newest.page.owner,
      };
      if (!isBefore(entry, bounds.before)) continue;
      if (bounds.after !== undefined && entry.timestamp <= bounds.after) continue;
      candidates.push(entry);
    }
    candidates.sort(compareNewestFirst);
    if (candidates.length > limit) candidates.length = limit;
  }
  return candidates;
}
