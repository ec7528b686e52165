import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { constants, inflateRawSync } from 'node:zlib';
import { documentClient } from './client';
import { DictionaryDeflater } from './dictionary-deflate';
import { keys } from './keys';
import type { Projection } from './operations';

/**
 * Time-ordered index pages over the events table.
 *
 * Why: an event item is keyed by (project, uuid) so that retries, beacons and SQS redeliveries
 * collapse into one item; a time-ordered key cannot do that, because a retried request gets a
 * different receive time and so a different corrected timestamp. Instead of a GSI per access pattern
 * (each GSI costs another write unit per event), the consumer writes, per consumed SQS message, one
 * small page per index value listing that batch's events as `<timestamp> <uuid>` lines.
 *
 * Layout: PK = I#<project>#<index>#<shard>#<value>, SK = <max timestamp>#<page id>.
 * - A page holds events of one minute only (a message's events are split by minute), so a page
 *   whose max timestamp is ≥ the end of a minute holds nothing earlier than that minute.
 * - Writes of a busy project spread over `shards` partitions (chosen by owner), merged on read.
 * - Pages are written once per consumer delivery (a batch of SQS messages), and the event items it
 *   writes record that delivery as their owner: when two deliveries carry the same uuid (an SDK
 *   retry, a redelivery), both list it but only the owner's entry is valid.
 *
 * - Entries are text, `<timestamp> <uuid>` a line (`entries`); a page whose text would take more
 *   than one write unit stores it deflated instead (`ez`), about a third of the size: a delivery's
 *   pages of every event and of busy event names hold hundreds of entries. Pages written before
 *   `ez` hold `entries` only and read as before.
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
  /**
   * The deliveries that listed it (a redelivery lists an event again): the event is valid only if
   * its item's owner is one of them.
   */
  readonly owners: string[];
}

/** A type rather than an interface, as `EventItem`: the consumer writes it without a copy. */
export type IndexPageItem = {
  PK: string;
  SK: string;
  owner: string;
  min: string;
  max: string;
  /** The entries as text, one `<timestamp> <uuid>` a line; or, on larger pages, deflated (`ez`). */
  entries?: string;
  ez?: Uint8Array;
  /**
   * How many entries the page lists, so that a skip can count a page without reading its entries
   * (event-skip.ts). Pages written before it have none.
   */
  n?: number;
};

/** What a walk over the index needs of a page to place it: its keys, bounds and entry count. */
export type PageHead = Pick<IndexPageItem, 'PK' | 'SK' | 'min' | 'max' | 'n'>;

/** An entry as a page stores it: `<timestamp> <uuid>`, one a line. */
const entryLine = (entry: IndexEntry): string => `${entry.timestamp} ${entry.uuid}`;

/**
 * Entries text longer than this is stored deflated: with the page's keys, owner and bounds (about
 * 200 bytes) it would pass the one KB a write unit covers, and deflate takes it to about a third.
 */
const plainEntriesBytes = 800;

/**
 * Pages' entries are deflated at zlib's default level, byte for byte as `deflateRawSync(text)`, through
 * one reused zlib state rather than a stream and a state per page (dictionary-deflate.ts).
 */
const entriesDeflater = new DictionaryDeflater(undefined, constants.Z_DEFAULT_COMPRESSION);

/** A page's entries attribute: the text itself while small, else deflated when that is smaller. */
function entriesAttribute(text: string): Pick<IndexPageItem, 'entries' | 'ez'> {
  const bytes = Buffer.byteLength(text);
  if (bytes <= plainEntriesBytes) return { entries: text };
  const deflated = entriesDeflater.deflate(Buffer.from(text));
  return deflated.length < bytes ? { ez: deflated } : { entries: text };
}

/** The lines of a page, `<timestamp> <uuid>` each, in either format `indexPages` writes them. */
export function linesOfPage(page: Pick<IndexPageItem, 'entries' | 'ez'>): string[] {
  const text = page.ez ? inflateRawSync(page.ez).toString('utf8') : (page.entries ?? '');
  return text === '' ? [] : text.split('\n');
}

/** An entry from its line. */
export function entryOfLine(line: string): IndexEntry {
  const space = line.indexOf(' ');
  return { timestamp: line.slice(0, space), uuid: line.slice(space + 1) };
}

/** The entries of a page, in either format `indexPages` writes them. */
export function entriesOfPage(page: Pick<IndexPageItem, 'entries' | 'ez'>): IndexEntry[] {
  return linesOfPage(page).map(entryOfLine);
}

/** Newest first: timestamp descending, then uuid descending. */
export function compareNewestFirst(a: IndexEntry, b: IndexEntry): number {
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp ? 1 : -1;
  if (a.uuid === b.uuid) return 0;
  return a.uuid < b.uuid ? 1 : -1;
}

/** The minute of a timestamp (`YYYY-MM-DDTHH:MM`): every entry of a page is of its max's minute. */
export const minuteOf = (timestamp: string): string => timestamp.slice(0, 16);
const maxEntriesPerPage = 2_000;

function shardFor(pageOwner: string, shards: number): number {
  if (shards <= 1) return 0;
  return createHash('sha1').update(pageOwner).digest().readUInt32BE(0) % shards;
}

/** An index page, and the entries it lists (as given to `indexPages`, newest first). */
export interface BuiltPage<E extends IndexEntry> {
  readonly page: IndexPageItem;
  readonly entries: readonly E[];
}

/**
 * The index pages a delivery's events produce: one page per (index value, minute), split if large.
 * `owner` identifies the delivery; the event items it writes carry the same owner. Each page comes
 * with the entries it lists, as given (the consumer tags a page with the messages of its entries).
 */
export function indexPages<E extends IndexEntry>(
  projectId: number,
  index: IndexSpec,
  owner: string,
  entriesByValue: ReadonlyMap<string, readonly E[]>,
): BuiltPage<E>[] {
  const shard = shardFor(owner, index.shards);
  const pages: BuiltPage<E>[] = [];
  for (const [value, entries] of entriesByValue) {
    const byMinute = new Map<string, E[]>();
    for (const entry of entries) {
      const minute = minuteOf(entry.timestamp);
      const bucket = byMinute.get(minute) ?? [];
      bucket.push(entry);
      byMinute.set(minute, bucket);
    }
    for (const [minute, bucket] of byMinute) {
      bucket.sort(compareNewestFirst);
      // A page stays far below DynamoDB's 400 KB item limit (an entry is about 62 bytes).
      for (let part = 0; part * maxEntriesPerPage < bucket.length; part++) {
        const chunk = bucket.slice(part * maxEntriesPerPage, (part + 1) * maxEntriesPerPage);
        const max = chunk[0]!.timestamp;
        const page: IndexPageItem = {
          PK: keys.indexPartition(projectId, index.name, shard, value),
          SK: keys.indexPageSortKey(max, `${owner}#${minute}#${part}`),
          owner,
          min: chunk[chunk.length - 1]!.timestamp,
          max,
          n: chunk.length,
          ...entriesAttribute(chunk.map(entryLine).join('\n')),
        };
        pages.push({ page, entries: chunk });
      }
    }
  }
  return pages;
}

export interface ReadBounds {
  /** Only entries strictly before this point (timestamp, then uuid for ties). */
  readonly before?: { readonly timestamp: string; readonly uuid?: string };
  /** Only entries strictly after this point (timestamp, then uuid for ties). */
  readonly after?: { readonly timestamp: string; readonly uuid?: string };
}

export type ReadOrder = 'newest' | 'oldest';

export interface ReadRequest {
  readonly tableName: string;
  readonly projectId: number;
  readonly index: IndexSpec;
  /** One or more index values (a person's distinct ids), merged. */
  readonly values: readonly string[];
  readonly limit: number;
  readonly order?: ReadOrder;
  readonly bounds?: ReadBounds;
}

/** Whether an entry lies strictly within the bounds. */
export const withinBounds = (entry: IndexEntry, bounds: ReadBounds): boolean =>
  isBefore(entry, bounds.before) && isAfter(entry, bounds.after);

function isBefore(entry: IndexEntry, bound: ReadBounds['before']): boolean {
  if (!bound) return true;
  if (entry.timestamp !== bound.timestamp) return entry.timestamp < bound.timestamp;
  return bound.uuid !== undefined && entry.uuid < bound.uuid;
}

function isAfter(entry: IndexEntry, bound: ReadBounds['after']): boolean {
  if (!bound) return true;
  if (entry.timestamp !== bound.timestamp) return entry.timestamp > bound.timestamp;
  return bound.uuid !== undefined && entry.uuid > bound.uuid;
}

const minuteStart = (timestamp: string): string => `${minuteOf(timestamp)}:00.000Z`;

/** End of the minute that holds `timestamp`: pages with a larger max hold nothing before it. */
function minuteEnd(timestamp: string): string {
  return new Date(Date.parse(minuteStart(timestamp)) + 60_000).toISOString();
}

/** Index pages one Query asks for at most: a few hundred KB, within the 1 MB a Query answers. */
const maxPagesPerQuery = 256;

/** Pages of one partition in max-timestamp order (descending for newest first), fetched lazily. */
export class PageStream<Page extends PageHead = IndexPageItem> {
  private buffer: Page[] = [];
  private lastKey: Record<string, unknown> | undefined;
  private done = false;
  /** Index pages per Query: a page lists many events, so start with a few and double as needed. */
  private pageSize = 2;

  constructor(
    private readonly tableName: string,
    private readonly partition: string,
    private readonly order: ReadOrder,
    /** SK below this (newest first) or above it (oldest first). */
    private readonly bound: string | undefined,
    /** The attributes to read of each page: all unless given. */
    private readonly projection?: Projection,
  ) {}

  async peek(): Promise<Page | undefined> {
    if (this.buffer.length === 0 && !this.done) await this.fetch();
    return this.buffer[0];
  }

  /** The pages fetched and not yet taken. */
  get buffered(): readonly Page[] {
    return this.buffer;
  }

  take(): Page | undefined {
    return this.buffer.shift();
  }

  /**
   * The reader expects to need this many more pages: the next Query asks for them at once (up to
   * what one Query answers anyway, 1 MB) rather than doubling its way there.
   */
  expect(pages: number): void {
    this.pageSize = Math.max(this.pageSize, Math.min(Math.ceil(pages), maxPagesPerQuery));
  }

  private async fetch(): Promise<void> {
    const comparison = this.order === 'newest' ? '<' : '>';
    const result = await documentClient.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: this.bound ? `PK = :pk AND SK ${comparison} :bound` : 'PK = :pk',
        ExpressionAttributeValues: { ':pk': this.partition, ...(this.bound ? { ':bound': this.bound } : {}) },
        ScanIndexForward: this.order === 'oldest',
        Limit: this.pageSize,
        ExclusiveStartKey: this.lastKey,
        ...(this.projection
          ? {
              ProjectionExpression: this.projection.expression,
              ExpressionAttributeNames: this.projection.names,
            }
          : {}),
      }),
    );
    this.buffer.push(...((result.Items ?? []) as Page[]));
    this.lastKey = result.LastEvaluatedKey;
    if (!this.lastKey) this.done = true;
    this.pageSize = Math.min(this.pageSize * 2, Math.max(this.pageSize, 64));
  }
}

/**
 * The page streams of a read, one per (value, shard). Pages are split by minute, so newest first,
 * one whose max is at or past the end of the `before` bound's minute holds nothing before it;
 * oldest first, one whose max is at or before the `after` bound holds nothing after it.
 */
export function pageStreams(request: Omit<ReadRequest, 'limit'>, order: ReadOrder): PageStream[];
export function pageStreams(
  request: Omit<ReadRequest, 'limit'>,
  order: ReadOrder,
  projection: Projection,
): PageStream<PageHead>[];
export function pageStreams(
  request: Omit<ReadRequest, 'limit'>,
  order: ReadOrder,
  projection?: Projection,
): PageStream<PageHead>[] {
  const { bounds = {} } = request;
  const bound =
    order === 'newest' ? bounds.before && minuteEnd(bounds.before.timestamp) : bounds.after?.timestamp;
  return request.values.flatMap((value) =>
    Array.from(
      { length: request.index.shards },
      (_, shard) =>
        new PageStream(
          request.tableName,
          keys.indexPartition(request.projectId, request.index.name, shard, value),
          order,
          bound,
          projection,
        ),
    ),
  );
}

/** The page that comes next in reading order (by max) over the streams, and its stream. */
export async function nextPage<Page extends PageHead>(
  streams: readonly PageStream<Page>[],
  order: ReadOrder,
): Promise<{ readonly stream: PageStream<Page>; readonly page: Page } | undefined> {
  let next: { stream: PageStream<Page>; page: Page } | undefined;
  for (const stream of streams) {
    const page = await stream.peek();
    if (page && (!next || (order === 'newest' ? page.max > next.page.max : page.max < next.page.max)))
      next = { stream, page };
  }
  return next;
}

/** Whether this page, and so every page after it in reading order, lies past the far bound. */
export function pastFarBound(page: PageHead, bounds: ReadBounds, order: ReadOrder): boolean {
  return order === 'newest'
    ? bounds.after !== undefined && page.max <= bounds.after.timestamp
    : bounds.before !== undefined && minuteStart(page.max) >= bounds.before.timestamp;
}

/**
 * The first `limit` entries, in the requested order, of one or more index values within the bounds,
 * merged over their shards. Entries are candidates: the caller checks each against its event
 * item's owner.
 *
 * Newest first: pages arrive by max timestamp descending; once `limit` entries are held, a page
 * whose max is older than the last of them cannot contribute, nor can any after it.
 * Oldest first: pages arrive by max ascending; a page holds one minute, so its entries are no older
 * than the start of its max's minute, and once that start is past the last entry held, stop.
 */
export async function readEntries(request: ReadRequest): Promise<IndexedEntry[]> {
  const { bounds = {}, limit } = request;
  const order = request.order ?? 'newest';
  const newest = order === 'newest';
  const streams = pageStreams(request, order);
  const compare = newest ? compareNewestFirst : (a: IndexEntry, b: IndexEntry) => compareNewestFirst(b, a);
  const candidates: IndexedEntry[] = [];
  // One candidate per (timestamp, uuid), holding every owner that listed it: kept apart, the stale
  // listing of a failed delivery could fill the last place and, as the cursor, hide the valid one.
  const held = new Map<string, IndexedEntry>();
  await Promise.all(streams.map((stream) => stream.peek()));
  // Candidates are put in order (and cut to `limit`) only once there are `limit` of them, when the
  // stop test needs the last: sorting after every page cost the square of the entries read when
  // pages are small (a delivery of one event lists it on a page of its own).
  const keepBest = () => {
    candidates.sort(compare);
    if (candidates.length > limit) {
      for (const dropped of candidates.splice(limit)) held.delete(entryLine(dropped));
    }
  };
  for (;;) {
    const next = await nextPage(streams, order);
    if (!next || pastFarBound(next.page, bounds, order)) break;
    const { page } = next;
    if (candidates.length >= limit) keepBest();
    const last = candidates.length >= limit ? candidates[limit - 1] : undefined;
    if (last && (newest ? page.max < last.timestamp : minuteStart(page.max) > last.timestamp)) break;
    next.stream.take();
    for (const stored of entriesOfPage(page)) {
      const entry = { ...stored, owners: [page.owner] };
      if (!withinBounds(entry, bounds)) continue;
      const line = entryLine(stored);
      const known = held.get(line);
      if (known) known.owners.push(page.owner);
      else {
        held.set(line, entry);
        candidates.push(entry);
      }
    }
  }
  keepBest();
  return candidates;
}
