import type { ReadBounds, ReadOrder, ReadRequest } from './event-index';
import { readEntries } from './event-index';
import { keys } from './keys';
import { batchGetItems } from './operations';

/**
 * An `offset` skipped by index entries alone: the events it passes over are never decoded, so their
 * size costs nothing of a listing's character budget. Each entry is still checked against its event
 * item's `owner` and `ts` (a projection of three small attributes), so an entry a listing would leave
 * out (a duplicate listing, a missing item) is not counted as an event skipped.
 */

/** Entries one skipping read asks for at most. */
const skipChunk = 1_000;

export interface Skipped {
  /** Valid entries passed over (fewer than asked when the index ended first). */
  readonly skipped: number;
  /** Entries read, valid or not: they count against a listing's examined budget. */
  readonly examined: number;
  /** Where the listing goes on: after the last event skipped. */
  readonly bounds: ReadBounds;
  /** The index holds nothing after them. */
  readonly exhausted: boolean;
}

interface OwnerItem {
  uuid: string;
  owner: string;
  ts: string;
}

const ownerProjection = {
  expression: '#uuid, #owner, #ts',
  names: { '#uuid': 'uuid', '#owner': 'owner', '#ts': 'ts' },
};

export async function skipEntries(
  request: Omit<ReadRequest, 'limit'>,
  order: ReadOrder,
  count: number,
): Promise<Skipped> {
  let bounds: ReadBounds = request.bounds ?? {};
  let skipped = 0;
  let examined = 0;
  while (skipped < count) {
    const chunk = Math.min(skipChunk, count - skipped);
    const entries = await readEntries({ ...request, order, limit: chunk, bounds });
    if (entries.length === 0) return { skipped, examined, bounds, exhausted: true };
    const items = new Map(
      (
        await batchGetItems<OwnerItem>(
          request.tableName,
          [...new Set(entries.map((entry) => entry.uuid))].map((uuid) => keys.event(request.projectId, uuid)),
          false,
          ownerProjection,
        )
      ).map((item) => [item.uuid, item]),
    );
    for (const entry of entries) {
      examined++;
      const item = items.get(entry.uuid);
      if (item && entry.owners.includes(item.owner) && item.ts === entry.timestamp) skipped++;
      bounds = order === 'newest' ? { ...bounds, before: entry } : { ...bounds, after: entry };
      if (skipped === count) break;
    }
    if (skipped < count && entries.length < chunk) return { skipped, examined, bounds, exhausted: true };
  }
  return { skipped, examined, bounds, exhausted: false };
}
