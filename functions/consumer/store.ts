import { randomBytes } from 'node:crypto';
import type { TaggedPut } from '../shared/db/operations';
import { batchPutAll } from '../shared/db/operations';
import type { IndexEntry, IndexSpec } from '../shared/db/event-index';
import { eventIndexes, indexPages } from '../shared/db/event-index';
import { toEventItem } from '../shared/db/events';
import type { StoredEvent } from '../shared/domain/event';
import type { MessageEvents } from './types';

interface Placed {
  readonly event: StoredEvent;
  readonly messageId: string;
}

/** An index entry with the message whose event it lists, to tag its page with. */
interface PlacedEntry extends IndexEntry {
  readonly messageId: string;
}

/** The batch's index pages of one index over one project's events, each tagged with its messages. */
function pagesOf(
  projectId: number,
  index: IndexSpec,
  owner: string,
  placed: readonly Placed[],
  keyOf: (event: StoredEvent) => string,
): TaggedPut[] {
  const groups = new Map<string, PlacedEntry[]>();
  for (const { event, messageId } of placed) {
    const key = keyOf(event);
    const group = groups.get(key) ?? [];
    group.push({ timestamp: event.timestamp, uuid: event.uuid, messageId });
    groups.set(key, group);
  }
  return indexPages(projectId, index, owner, groups).map(({ page, entries }) => ({
    item: page,
    tag: [...new Set(entries.map((entry) => entry.messageId))],
  }));
}

/**
 * Every item a batch's events need: one event item per event and the index pages listing them
 * (see event-index.ts), all owned by `owner`, this delivery's id.
 *
 * Pages are written per delivery, not per message: a distinct id or event name that recurs across
 * the messages of one batch costs one page, not one per message (server-side SDKs send many users
 * per request). An item is tagged with the messages it holds events of, so a failed write fails
 * exactly those. A redelivery writes new pages under a new owner and rewrites the event items with
 * it; the old pages' entries then no longer match their events' owner and are skipped by readers.
 * Each event item names the source of the message it came from (`sources`, by message id: the lake's
 * exactly-once, lake-sources.ts).
 */
export function itemsOfBatch(
  messages: readonly MessageEvents[],
  owner: string,
  sources?: ReadonlyMap<string, string>,
): TaggedPut[] {
  // One item per (project, uuid): a uuid sent twice in a batch is stored once, the last one winning.
  const byKey = new Map<string, Placed>();
  for (const message of messages) {
    for (const event of message.events)
      byKey.set(`${message.projectId}\u0000${event.uuid}`, { event, messageId: message.messageId });
  }
  const byProject = new Map<number, Placed[]>();
  for (const placed of byKey.values()) {
    const list = byProject.get(placed.event.projectId) ?? [];
    list.push(placed);
    byProject.set(placed.event.projectId, list);
  }
  const puts: TaggedPut[] = [];
  for (const [projectId, placed] of byProject) {
    for (const { event, messageId } of placed)
      puts.push({ item: toEventItem(event, owner, sources?.get(messageId)), tag: messageId });
    puts.push(
      ...pagesOf(projectId, eventIndexes.all, owner, placed, () => ''),
      ...pagesOf(projectId, eventIndexes.event, owner, placed, (event) => event.event),
      ...pagesOf(projectId, eventIndexes.distinctId, owner, placed, (event) => event.distinctId),
    );
  }
  return puts;
}

/**
 * A delivery's owner: 96 random bits, 16 characters. Shorter than a UUID's 36, which pays for the
 * event item's `src` (14 bytes) and shortens each index page: an item near a write unit's end stays
 * within it.
 */
const newOwner = (): string => randomBytes(12).toString('base64url');

/**
 * Stores the events of many messages in as few BatchWriteItem calls as possible.
 * Returns the ids of messages some of whose items could not be stored.
 */
export async function storeEvents(
  tableName: string,
  messages: readonly MessageEvents[],
  owner: string = newOwner(),
  sources?: ReadonlyMap<string, string>,
): Promise<Map<string, Error>> {
  return batchPutAll(tableName, itemsOfBatch(messages, owner, sources), 8, 'low-level');
}
