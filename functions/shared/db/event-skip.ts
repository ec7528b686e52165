import type {
  IndexEntry,
  IndexedEntry,
  IndexPageItem,
  PageHead,
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
import type { Projection } from './operations';
import { batchGetItems } from './operations';

/**
 * An `offset` skipped by index entries alone: the events it passes over are neither read nor
 * decoded, so their size costs nothing of a listing's character budget, and a deep offset costs a
 * few index Queries rather than an item read per event.
 *
 * Skipping walks the index a minute at a time: every page holds the entries of one minute, so once
 * the pages of a minute are known (from every shard and value) none of a later minute comes before
 * them. The walk reads each page's head only (keys, min and max timestamps, and `n`, the number of
 * entries it lists), not its entries: a page's entries are most of its bytes, and reading and
 * parsing them was most of a deep offset's time.
 *
 * A page's `n` is its count of distinct entries skipped when nothing else could list one of them:
 * an entry listed by two deliveries (a redelivery, a retried request with the same timestamp) is one
 * entry, as `readEntries` folds it, and both listings carry the entry's own timestamp. So pages of a
 * minute whose [min, max] ranges do not meet share no entry, and each counts for its `n`; pages
 * whose ranges meet (the pages of deliveries that interleave within the minute), a page the bounds
 * cut, and a page written before `n` are counted by their distinct lines, read for them only. Only
 * the minute where the offset ends is put in order, to find the entry it ends at.
 *
 * The lines to read are gathered over minutes and read together (BatchGetItem), until the minutes
 * gathered could hold the rest of the offset: until then, all are passed over whatever they hold.
 *
 * Write-time counters (per minute or per project) were weighed and left out: they cost about 0.4
 * write units per event more, and a delivery cannot tell at write time whether another delivery
 * lists the same event, so they would count it twice.
 */

export interface Skipped {
  /** Entries passed over (fewer than asked when the index ended first). */
  readonly skipped: number;
  /** Where the listing goes on: after the last entry skipped. */
  readonly bounds: ReadBounds;
  /** The index holds nothing after them. */
  readonly exhausted: boolean;
  /**
   * The entries that follow, in reading order, each with every delivery that listed it (as
   * `readEntries` returns them): those of the minutes read to place the offset's end, and of the
   * minutes after it, until they are as many as asked for (or the index ends). A listing starts
   * from them instead of reading those pages again.
   */
  readonly following?: Following;
}

export interface Following {
  readonly entries: IndexedEntry[];
  /** They are all the index holds after the skip: nothing comes after them. */
  readonly complete: boolean;
}

/** What the walk reads of a page. */
const headProjection: Projection = {
  expression: '#pk, #sk, #min, #max, #n',
  names: { '#pk': 'PK', '#sk': 'SK', '#min': 'min', '#max': 'max', '#n': 'n' },
};

/** What is read of a page whose lines must be counted. */
const linesProjection: Projection = {
  expression: '#pk, #sk, #owner, #entries, #ez',
  names: { '#pk': 'PK', '#sk': 'SK', '#owner': 'owner', '#entries': 'entries', '#ez': 'ez' },
};

/**
 * Pages gathered (their lines unread) at most before they are counted: the heads held stay small,
 * and their lines come in eight BatchGetItem calls at once.
 */
const maxPendingPages = 800;

const pageKey = (page: Pick<PageHead, 'PK' | 'SK'>): string => `${page.PK}\n${page.SK}`;

interface PageListing {
  readonly owner: string;
  readonly lines: readonly string[];
}

/** The lines of pages (and the delivery that wrote each), read by key when first needed. */
class PageLines {
  private readonly listings = new Map<string, PageListing>();

  constructor(private readonly tableName: string) {}

  async load(pages: readonly PageHead[]): Promise<void> {
    const missing = [...new Map(pages.map((page) => [pageKey(page), page])).entries()]
      .filter(([key]) => !this.listings.has(key))
      .map(([, page]) => page);
    if (missing.length === 0) return;
    const items = await batchGetItems<Pick<IndexPageItem, 'PK' | 'SK' | 'owner' | 'entries' | 'ez'>>(
      this.tableName,
      missing.map((page) => ({ PK: page.PK, SK: page.SK })),
      false,
      linesProjection,
    );
    // A page gone since the walk read its head (none is deleted today) lists nothing.
    for (const page of missing) this.listings.set(pageKey(page), { owner: '', lines: [] });
    for (const item of items)
      this.listings.set(pageKey(item), { owner: item.owner, lines: linesOfPage(item) });
  }

  of(page: PageHead): PageListing {
    const listing = this.listings.get(pageKey(page));
    if (!listing) throw new Error('page lines not loaded');
    return listing;
  }

  clear(): void {
    this.listings.clear();
  }
}

/** Whether every entry of the page lies within the bounds: then none needs a test. */
const pageWithin = (page: PageHead, bounds: ReadBounds): boolean =>
  (bounds.before === undefined || page.max < bounds.before.timestamp) &&
  (bounds.after === undefined || page.min > bounds.after.timestamp);

/** A page's entry count as written, if it has a usable one. */
const countOf = (page: PageHead): number | undefined =>
  Number.isSafeInteger(page.n) && page.n! >= 0 ? page.n : undefined;

/** The pages of one minute, and what is known of their count before any of their lines is read. */
interface Minute {
  readonly pages: readonly PageHead[];
  /** Entries of the pages counted by `n`: within the bounds, sharing no moment with another page. */
  readonly counted: number;
  /** The pages counted by their distinct lines. */
  readonly open: readonly PageHead[];
  /** At most this many entries within the bounds (infinite when an open page has no `n`). */
  readonly most: number;
}

/**
 * Sorts a minute's pages into those counted by `n` and those whose lines must be read. Pages sorted
 * by `min` fall into runs whose ranges meet (a page joins the run while its min is at or before the
 * run's latest max): a page alone in its run shares no timestamp, so no entry, with any other.
 */
function minuteOfPages(pages: readonly PageHead[], bounds: ReadBounds): Minute {
  const byMin = [...pages].sort((a, b) => (a.min < b.min ? -1 : a.min > b.min ? 1 : 0));
  const open: PageHead[] = [];
  let counted = 0;
  let most = 0;
  let run: PageHead[] = [];
  let runMax = '';
  const closeRun = () => {
    for (const page of run) {
      const n = countOf(page);
      if (run.length === 1 && n !== undefined && pageWithin(page, bounds)) counted += n;
      else open.push(page);
      most += n ?? Number.POSITIVE_INFINITY;
    }
  };
  for (const page of byMin) {
    if (run.length > 0 && page.min > runMax) {
      closeRun();
      run = [];
    }
    run.push(page);
    if (page.max > runMax) runMax = page.max;
  }
  closeRun();
  return { pages, counted, open, most };
}

/** The number of distinct lines of pages that lie within the bounds (their lines loaded). */
function countWithin(pages: readonly PageHead[], lines: PageLines, bounds: ReadBounds): number {
  const within = new Set<string>();
  for (const page of pages) {
    const inside = pageWithin(page, bounds);
    for (const line of lines.of(page).lines) {
      if (inside || withinBounds(entryOfLine(line), bounds)) within.add(line);
    }
  }
  return within.size;
}

/**
 * The entries of whole minutes' pages (their lines loaded) within the bounds, in reading order,
 * each with every delivery that listed it, as `readEntries` folds them.
 */
function entriesWithin(
  pages: readonly PageHead[],
  lines: PageLines,
  bounds: ReadBounds,
  order: ReadOrder,
): IndexedEntry[] {
  const held = new Map<string, IndexedEntry>();
  for (const page of pages) {
    const { owner, lines: listed } = lines.of(page);
    const inside = pageWithin(page, bounds);
    for (const line of listed) {
      const known = held.get(line);
      if (known) known.owners.push(owner);
      else {
        const entry = entryOfLine(line);
        if (inside || withinBounds(entry, bounds)) held.set(line, { ...entry, owners: [owner] });
      }
    }
  }
  return [...held.values()].sort(order === 'newest' ? compareNewestFirst : compareOldestFirst);
}

const compareOldestFirst = (a: IndexEntry, b: IndexEntry): number => compareNewestFirst(b, a);

/** The bounds that continue a read after `entry`. */
function continueAfter(bounds: ReadBounds, order: ReadOrder, { timestamp, uuid }: IndexEntry): ReadBounds {
  return order === 'newest'
    ? { ...bounds, before: { timestamp, uuid } }
    : { ...bounds, after: { timestamp, uuid } };
}

/** Entries a minute's pages list by their counts (a page without one lists one entry at least). */
const listedBy = (pages: readonly PageHead[]): number =>
  pages.reduce((sum, page) => sum + (countOf(page) ?? 1), 0);

/**
 * How much more than the mean a stream is asked for: a busy stretch's deliveries need not spread
 * evenly over the shards, and a stream that runs short costs another round of Queries.
 */
const paceMargin = 1.5;

/** The index's pages a minute at a time, in reading order, over every shard and value. */
class MinuteWalk {
  private readonly streams: readonly PageStream<PageHead>[];
  /** Minutes taken from the streams to look ahead, not yet walked. */
  private readonly queued: PageHead[][] = [];
  private pagesSeen = 0;
  private listedSeen = 0;

  constructor(
    private readonly request: Omit<ReadRequest, 'limit'>,
    private readonly order: ReadOrder,
    /** Entries the walk is expected to pass over in all. */
    private readonly expected: number,
  ) {
    this.streams = pageStreams(request, order, headProjection);
    // Before any page is seen, how many entries a page lists is unknown (one to thousands): the
    // first Query of each stream asks for the square root of the entries wanted of it, which is
    // right when a page lists as many entries as there are pages to read, and within that root of
    // the need either way otherwise. Later Queries are sized by the pages seen.
    for (const stream of this.streams) stream.expect(Math.sqrt(expected / this.streams.length));
  }

  private get bounds(): ReadBounds {
    return this.request.bounds ?? {};
  }

  /** The pages of the next minute; none at the end. */
  async next(): Promise<PageHead[]> {
    return this.queued.shift() ?? (await this.take());
  }

  /**
   * The pages of the minutes after those walked, until they list `wanted` entries by their counts,
   * and whether the index ends with them. They are still to be walked.
   */
  async ahead(wanted: number): Promise<{ readonly pages: PageHead[]; readonly last: boolean }> {
    let listed = this.queued.reduce((sum, pages) => sum + listedBy(pages), 0);
    while (listed < wanted) {
      const pages = await this.take();
      if (pages.length === 0) return { pages: this.queued.flat(), last: true };
      this.queued.push(pages);
      listed += listedBy(pages);
    }
    return { pages: this.queued.flat(), last: false };
  }

  private async take(): Promise<PageHead[]> {
    const { streams, order } = this;
    await Promise.all(streams.map((stream) => stream.peek()));
    const first = await nextPage(streams, order);
    if (!first || pastFarBound(first.page, this.bounds, order)) return [];
    const minute = minuteOf(first.page.max);
    const pages: PageHead[] = [];
    for (const stream of streams) {
      for (
        let page = await stream.peek();
        page && minuteOf(page.max) === minute;
        page = await stream.peek()
      ) {
        pages.push(page);
        stream.take();
      }
    }
    this.pace(pages);
    return pages;
  }

  /**
   * Asks each stream for the pages the rest of the walk looks to need, at once, by the entries per
   * page of the pages seen so far (taken and buffered): the first minute's pages alone (often a
   * delivery's last, short page) made a deep offset ask for several times what it needed.
   */
  private pace(taken: readonly PageHead[]): void {
    for (const page of taken) {
      const n = countOf(page);
      if (n === undefined) continue;
      this.pagesSeen++;
      this.listedSeen += n;
    }
    // Only a stream with nothing buffered asks again: counting the buffered pages after every
    // minute took a tenth of a deep skip's time.
    if (!this.streams.some((stream) => stream.buffered.length === 0)) return;
    let pages = this.pagesSeen;
    let listed = this.listedSeen;
    for (const page of this.streams.flatMap((stream) => stream.buffered)) {
      const n = countOf(page);
      if (n === undefined) continue;
      pages++;
      listed += n;
    }
    if (pages === 0) return;
    const perPage = Math.max(1, listed / pages);
    const rest = ((this.expected - this.listedSeen) / perPage / this.streams.length) * paceMargin;
    for (const stream of this.streams) stream.expect(rest);
  }
}

/**
 * Passes over the first `count` entries of an index read, by their pages' counts where they tell
 * it, and gives at least the `following` ones where the index holds them.
 */
export async function skipEntries(
  request: Omit<ReadRequest, 'limit'>,
  order: ReadOrder,
  count: number,
  following = 0,
): Promise<Skipped> {
  const start: ReadBounds = request.bounds ?? {};
  if (count <= 0) return { skipped: 0, bounds: start, exhausted: false };
  const walk = new MinuteWalk(request, order, count + following);
  const lines = new PageLines(request.tableName);
  let skipped = 0;
  /** Minutes passed over whose count is not known yet, first in reading order first. */
  let pending: Minute[] = [];
  let pendingPages = 0;
  let pendingMost = 0;
  /** The last minute passed over that held an entry: the skip goes on after its last. */
  let lastPassed: Minute | undefined;
  for (;;) {
    const pages = await walk.next();
    if (pages.length > 0) {
      const minute = minuteOfPages(pages, start);
      // Nothing to read: a minute counted by `n` alone, with none gathered before it.
      if (pending.length === 0 && minute.open.length === 0 && skipped + minute.counted < count) {
        skipped += minute.counted;
        if (minute.counted > 0) lastPassed = minute;
        continue;
      }
      pending.push(minute);
      pendingPages += pages.length;
      pendingMost += minute.most;
      if (skipped + pendingMost < count && pendingPages < maxPendingPages) continue;
      // The offset may end in this minute: its lines, and those of the minutes a listing reads
      // after it, come in the same read as the others'.
      const mayEnd = skipped + pendingMost >= count;
      const after = mayEnd ? [...pages, ...(await walk.ahead(following)).pages] : [];
      await lines.load([...pending.flatMap((gathered) => gathered.open), ...after]);
    } else {
      await lines.load(pending.flatMap((gathered) => gathered.open));
    }
    for (const [i, minute] of pending.entries()) {
      const within = countWithin(minute.open, lines, start) + minute.counted;
      const wanted = count - skipped;
      if (within < wanted) {
        skipped += within;
        if (within > 0) lastPassed = minute;
        continue;
      }
      // The offset ends in this minute: only here are entries put in order.
      const later = pending.slice(i + 1).flatMap((gathered) => gathered.pages);
      await lines.load([...minute.pages, ...later]);
      const entries = entriesWithin(minute.pages, lines, start, order);
      const rest = [...entries.slice(wanted), ...entriesWithin(later, lines, start, order)];
      const ahead = await walk.ahead(following - rest.length);
      await lines.load(ahead.pages);
      return {
        skipped: count,
        bounds: continueAfter(start, order, entries[wanted - 1]!),
        exhausted: false,
        following: {
          entries: [...rest, ...entriesWithin(ahead.pages, lines, start, order)],
          complete: ahead.last,
        },
      };
    }
    pending = [];
    pendingPages = 0;
    pendingMost = 0;
    lines.clear();
    if (pages.length === 0) {
      if (!lastPassed) return { skipped, bounds: start, exhausted: true };
      await lines.load(lastPassed.pages);
      const last = entriesWithin(lastPassed.pages, lines, start, order).at(-1);
      return { skipped, bounds: last ? continueAfter(start, order, last) : start, exhausted: true };
    }
  }
}
