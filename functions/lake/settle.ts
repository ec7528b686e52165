import type { EventSource } from '../shared/db/events';
import { eventRefKey, storedEventSources } from '../shared/db/events';
import type { LakeEvent } from '../shared/lake/row';
import type { LakeMessage } from '../shared/queue/lake-message';

/**
 * The settle check (docs/lake.md, "Exactly once"): before writing a hand-off's events, the lake
 * writer reads their event items (strongly consistent) and keeps only the events whose item names
 * the hand-off's source and timestamp.
 *
 * Two ingest messages carrying the same uuid that both read "not stored" before either wrote both
 * write the item and hand it over (consumer/lake-sources.ts). The one whose write landed last holds
 * the item. Checked once the hand-off is older than the settle time (`lakeQueue.settleSeconds`):
 * the other message's read came before this message's write (or it would have found the item), so
 * its write was signed within a consumer invocation that began before this hand-off was sent, and
 * has landed by then or never will. So of the racing hand-offs exactly one, the last writer's, finds
 * its own source in the item. A copy that read the item after the first write never hands it over.
 *
 * The timestamp too: a plugin that changes it on a redelivery moves the event to another date, and
 * only the copy the item holds is written (the claim per source keeps a copy written before, under
 * the old date, from being written again: db/lake-claims.ts).
 *
 * An item without a source was written before sources were kept (its hand-off names the ingest
 * message's id): kept. No item: the event is gone (its project deleted) and is not written.
 */

/** Whether the stored item is the copy this hand-off carries. */
function holds(item: EventSource | undefined, source: string, event: LakeEvent): boolean {
  if (item === undefined) return false;
  return (item.src === undefined || item.src === source) && item.ts === event.timestamp;
}

/**
 * The events of each message that its source still holds, by the message's position in `messages`
 * (all of one project), and how many were left out.
 */
export async function settledEvents(
  eventsTable: string,
  projectId: number,
  messages: readonly LakeMessage[],
): Promise<{ readonly kept: LakeEvent[][]; readonly superseded: number }> {
  const stored = await storedEventSources(
    eventsTable,
    messages.flatMap((message) => message.events.map((event) => ({ projectId, uuid: event.uuid }))),
  );
  let superseded = 0;
  const kept = messages.map((message) =>
    message.events.filter((event) => {
      const held = holds(stored.get(eventRefKey({ projectId, uuid: event.uuid })), message.source, event);
      if (!held) superseded++;
      return held;
    }),
  );
  return { kept, superseded };
}

/** How long until every message of `sentAt` (epoch ms) is older than the settle time. */
export const unsettledMs = (sentAt: number, settleSeconds: number, now: number): number =>
  Math.max(0, sentAt + settleSeconds * 1000 - now);
