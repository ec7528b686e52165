import type { ReadBounds, ReadOrder, ReadRequest } from './event-index';
import { readEntries } from './event-index';

/**
 * An `offset` skipped by index entries alone: the events it passes over are neither read nor
 * decoded, so their size costs nothing of a listing's character budget, and a deep offset costs a
 * few index Queries (entries are small pages of many events) rather than an item read per event.
 * readEntries already folds the listings of one (timestamp, uuid) into one entry; an entry whose
 * item a listing would leave out (a stale listing of a delivery that failed between its index and
 * its item writes) still counts as one event skipped.
 */

/** Entries one skipping read asks for at most. */
const skipChunk = 5_000;

export interface Skipped {
  /** Entries passed over (fewer than asked when the index ended first). */
  readonly skipped: number;
  /** Where the listing goes on: after the last entry skipped. */
  readonly bounds: ReadBounds;
  /** The index holds nothing after them. */
  readonly exhausted: boolean;
}

export async function skipEntries(
  request: Omit<ReadRequest, 'limit'>,
  order: ReadOrder,
  count: number,
): Promise<Skipped> {
  let bounds: ReadBounds = request.bounds ?? {};
  let skipped = 0;
  while (skipped < count) {
    const chunk = Math.min(skipChunk, count - skipped);
    const entries = await readEntries({ ...request, order, limit: chunk, bounds });
    const last = entries[entries.length - 1];
    if (!last) return { skipped, bounds, exhausted: true };
    skipped += entries.length;
    bounds = order === 'newest' ? { ...bounds, before: last } : { ...bounds, after: last };
    if (entries.length < chunk) return { skipped, bounds, exhausted: skipped < count };
  }
  return { skipped, bounds, exhausted: false };
}
