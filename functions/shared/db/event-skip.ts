import type {
  IndexEntry,
  IndexPageItem,
  PageStream,
  ReadBounds,
  ReadOrder,
  ReadRequest,
} from './event-index';
import {
  compareNewestFirst,
  entryOfLine,
  linesOfPage,
  minuteOf,
  nextPage,
  pageStreams,
  pastFarBound,
  withinBounds,
} from './event-index';

/**
 * An `offset` skipped by index entries alone: the events it passes over are neither read nor
 * decoded, so their size costs nothing of a listing's character budget, and a deep offset costs a
 * few index Queries (entries are small pages of many events) rather than an item read per event.
 *
 * Skipping walks the index a minute at a time: every page holds the entries of one minute, so once
 * the pages of a minute are read (from every shard and value) its entries are all known, and none
 * of a later minute comes before them. A minute is counted (its distinct `<timestamp> <uuid>`
 * lines within the bounds) without ordering or building its entries; only the minute where the
 * offset ends is sorted, to find the entry it ends at. The work is linear in the entries passed
 * over, where merging them into one sorted list page by page grew with their square.
 *
 * An entry listed by two deliveries (a redelivery, a retried request with the same timestamp) is
 * one entry, as `readEntries` folds it; an entry whose item a listing would leave out (a stale
 * listing of a delivery that failed between its index and its item writes) still counts as one
 * event skipped.
 */

export interface Skipped {
  /** Entries passed over (fewer than asked when the index ended first). */
  readonly skipped: number;
  /** Where the listing goes on: after the last entry skipped. */
  readonly bounds: ReadBounds;
  /** The index holds nothing after them. */
  readonly exhausted: boolean;
}

/** The distinct lines of one minute's pages that lie within the bounds. */
function linesOfMinute(pages: readonly IndexPageItem[], bounds: ReadBounds): Set<string> {
  const lines = new Set<string>();
  for (const page of pages) {
    // A page wholly inside the bounds needs no test per line.
    const inside =
      (bounds.before === undefined || page.max < bounds.before.timestamp) &&
      (bounds.after === undefined || page.min > bounds.after.timestamp);
    for (const line of linesOfPage(page)) {
      if (inside || withinBounds(entryOfLine(line), bounds)) lines.add(line);
    }
  }
  return lines;
}

/** The pages of the next minute in reading order, taken from every stream; none at the end. */
async function nextMinute(
  streams: readonly PageStream[],
  order: ReadOrder,
  bounds: ReadBounds,
): Promise<IndexPageItem[]> {
  await Promise.all(streams.map((stream) => stream.peek()));
  const first = await nextPage(streams, order);
  if (!first || pastFarBound(first.page, bounds, order)) return [];
  const minute = minuteOf(first.page.max);
  const pages: IndexPageItem[] = [];
  for (const stream of streams) {
    for (let page = await stream.peek(); page && minuteOf(page.max) === minute; page = await stream.peek()) {
      pages.push(page);
      stream.take();
    }
  }
  return pages;
}

const compareOldestFirst = (a: IndexEntry, b: IndexEntry): number => compareNewestFirst(b, a);

/** The bounds that continue a read after `entry`. */
const continueAfter = (bounds: ReadBounds, order: ReadOrder, entry: IndexEntry): ReadBounds =>
  order === 'newest' ? { ...bounds, before: entry } : { ...bounds, after: entry };

/**
 * The line that comes last in reading order. Lines compare as their entries do: a stored timestamp
 * has one length (ISO 8601 in UTC with milliseconds), so the text orders by timestamp, then uuid.
 */
function lastLine(lines: Iterable<string>, order: ReadOrder): string | undefined {
  let last: string | undefined;
  for (const line of lines) {
    if (last === undefined || (order === 'newest' ? line < last : line > last)) last = line;
  }
  return last;
}

export async function skipEntries(
  request: Omit<ReadRequest, 'limit'>,
  order: ReadOrder,
  count: number,
): Promise<Skipped> {
  const start: ReadBounds = request.bounds ?? {};
  let bounds = start;
  let skipped = 0;
  const streams = pageStreams(request, order);
  let pagesRead = 0;
  let linesRead = 0;
  while (skipped < count) {
    const pages = await nextMinute(streams, order, start);
    if (pages.length === 0) return { skipped, bounds, exhausted: true };
    const lines = linesOfMinute(pages, start);
    pagesRead += pages.length;
    linesRead += lines.size;
    // As many pages as the rest of the offset looks to need, asked of each stream at once.
    const perPage = Math.max(1, linesRead / pagesRead);
    for (const stream of streams) stream.expect((count - skipped - lines.size) / perPage / streams.length);
    const wanted = count - skipped;
    if (lines.size < wanted) {
      skipped += lines.size;
      const last = lastLine(lines, order);
      if (last !== undefined) bounds = continueAfter(start, order, entryOfLine(last));
      continue;
    }
    // The offset ends in this minute: only here are entries put in order.
    const entries = [...lines]
      .map(entryOfLine)
      .sort(order === 'newest' ? compareNewestFirst : compareOldestFirst);
    return { skipped: count, bounds: continueAfter(start, order, entries[wanted - 1]!), exhausted: false };
  }
  return { skipped, bounds, exhausted: false };
}
