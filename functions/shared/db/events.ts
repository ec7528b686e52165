import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { StoredEvent } from '../domain/event';
import { documentClient } from './client';
import type { IndexSpec, ReadBounds } from './event-index';
import { compareNewestFirst, readNewestEntries } from './event-index';
import { keys } from './keys';

/**
 * Event items: keyed by (project, uuid), so writing the same event twice leaves one item.
 * Write units are billed per started KB: properties that would push an item past 1 KB are stored
 * deflated (a typical 1 KB properties object deflates to well under half), smaller ones as text.
 */
export interface EventItem {
  PK: string;
  SK: string;
  uuid: string;
  project: number;
  event: string;
  distinct_id: string;
  ts: string;
  created_at: string;
  elements_chain?: string;
  /** Properties as JSON text, or deflated JSON in `pz`. */
  props?: string;
  pz?: Uint8Array;
  /** Id of the SQS message whose index pages list this event (see event-index.ts). */
  owner: string;
}

/** Room the item's other attributes take (keys, names, timestamps, owner), with a margin. */
const itemOverheadBytes = 360;
const writeUnitBytes = 1024;

export function toEventItem(event: StoredEvent, owner: string): EventItem {
  const json = JSON.stringify(event.properties);
  const fitsAsText =
    Buffer.byteLength(json) + event.event.length + event.distinctId.length + itemOverheadBytes <=
    writeUnitBytes;
  // The fastest level: nearly the same size on small JSON, several times less CPU than the default.
  const compressed = fitsAsText ? undefined : deflateRawSync(json, { level: 1 });
  return {
    ...keys.event(event.projectId, event.uuid),
    uuid: event.uuid,
    project: event.projectId,
    event: event.event,
    distinct_id: event.distinctId,
    ts: event.timestamp,
    created_at: event.createdAt,
    elements_chain: event.elementsChain || undefined,
    ...(compressed && compressed.length < json.length ? { pz: compressed } : { props: json }),
    owner,
  };
}

export function fromEventItem(item: EventItem): StoredEvent {
  const json = item.pz ? inflateRawSync(item.pz).toString('utf8') : (item.props ?? '{}');
  return {
    uuid: item.uuid,
    projectId: item.project,
    event: item.event,
    distinctId: item.distinct_id,
    properties: JSON.parse(json) as Record<string, unknown>,
    timestamp: item.ts,
    elementsChain: item.elements_chain ?? '',
    createdAt: item.created_at,
  };
}

/** Event items by uuid (absent ones are missing from the map). */
export async function getEventItems(
  tableName: string,
  projectId: number,
  uuids: readonly string[],
): Promise<Map<string, EventItem>> {
  const found = new Map<string, EventItem>();
  const chunks: string[][] = [];
  for (let i = 0; i < uuids.length; i += 100) chunks.push([...new Set(uuids.slice(i, i + 100))]);
  await Promise.all(
    chunks.map(async (chunk) => {
      let requestKeys: Record<string, unknown>[] = chunk.map((uuid) => keys.event(projectId, uuid));
      while (requestKeys.length > 0) {
        const result = await documentClient.send(
          new BatchGetCommand({ RequestItems: { [tableName]: { Keys: requestKeys } } }),
        );
        for (const item of (result.Responses?.[tableName] ?? []) as EventItem[]) found.set(item.uuid, item);
        requestKeys = (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
      }
    }),
  );
  return found;
}

/**
 * The newest `limit` events of one index value within the bounds. Entries whose event item belongs
 * to another message (a duplicate listing) or is missing are skipped, reading further if needed.
 */
export async function listNewestEvents(
  tableName: string,
  projectId: number,
  index: IndexSpec,
  value: string,
  limit: number,
  bounds: ReadBounds = {},
): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  let cursor = bounds.before;
  for (;;) {
    const want = limit - events.length;
    const entries = await readNewestEntries(tableName, projectId, index, value, want, {
      ...bounds,
      before: cursor,
    });
    if (entries.length === 0) break;
    const items = await getEventItems(
      tableName,
      projectId,
      entries.map((entry) => entry.uuid),
    );
    for (const entry of entries) {
      const item = items.get(entry.uuid);
      if (item && item.owner === entry.owner && item.ts === entry.timestamp) events.push(fromEventItem(item));
    }
    if (entries.length < want || events.length >= limit) break;
    const last = entries[entries.length - 1]!;
    cursor = { timestamp: last.timestamp, uuid: last.uuid };
  }
  return events.sort((a, b) => compareNewestFirst(a, b)).slice(0, limit);
}
