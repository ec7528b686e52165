import type { TaggedPut } from '../shared/db/batch-write';
import { batchPutAll } from '../shared/db/batch-write';
import type { IndexEntry } from '../shared/db/event-index';
import { buildIndexPages, eventIndexes } from '../shared/db/event-index';
import { toEventItem } from '../shared/db/events';
import type { StoredEvent } from '../shared/domain/event';

/** The events of one SQS message, tagged with its message id. */
export interface MessageEvents {
  readonly messageId: string;
  readonly projectId: number;
  readonly events: readonly StoredEvent[];
}

function groupBy(
  events: readonly StoredEvent[],
  keyOf: (event: StoredEvent) => string,
): Map<string, IndexEntry[]> {
  const groups = new Map<string, IndexEntry[]>();
  for (const event of events) {
    const key = keyOf(event);
    const group = groups.get(key) ?? [];
    group.push({ timestamp: event.timestamp, uuid: event.uuid });
    groups.set(key, group);
  }
  return groups;
}

/** Every item one message's events need: the event items and their index pages (see event-index.ts). */
export function itemsOfMessage(message: MessageEvents): TaggedPut[] {
  const unique = [...new Map(message.events.map((event) => [event.uuid, event])).values()];
  const owner = message.messageId;
  const pages = [
    ...buildIndexPages(
      message.projectId,
      eventIndexes.all,
      owner,
      groupBy(unique, () => ''),
    ),
    ...buildIndexPages(
      message.projectId,
      eventIndexes.event,
      owner,
      groupBy(unique, (event) => event.event),
    ),
    ...buildIndexPages(
      message.projectId,
      eventIndexes.distinctId,
      owner,
      groupBy(unique, (event) => event.distinctId),
    ),
  ];
  return [
    ...unique.map((event) => ({ item: { ...toEventItem(event, owner) }, tag: owner })),
    ...pages.map((page) => ({ item: { ...page }, tag: owner })),
  ];
}

/**
 * Stores the events of many messages in as few BatchWriteItem calls as possible.
 * Returns the ids of messages some of whose items could not be stored.
 */
export async function storeEvents(
  tableName: string,
  messages: readonly MessageEvents[],
): Promise<Set<string>> {
  return batchPutAll(tableName, messages.flatMap(itemsOfMessage), 8);
}
