import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../shared/db/client';
import type { IndexPageItem } from '../shared/db/event-index';
import { entriesOfPage, eventIndexes } from '../shared/db/event-index';
import type { EventItem } from '../shared/db/events';
import { keys } from '../shared/db/keys';
import { batchGetItems } from '../shared/db/operations';
import type { EventWindow } from '../shared/domain/cohorts/behavioral';
import { windowKey } from '../shared/domain/cohorts/behavioral';

/**
 * What behavioural filters count: for each window (event name, since), how many of the named events
 * each distinct id performed in it. Reads only the named event's index pages from the window's start
 * (event-index.ts: one Query per shard, pages ordered by their newest entry) and then those events'
 * items for their distinct ids, checked against the index's owners as the events API does.
 */

export type WindowCounts = Map<string, Map<string, number>>;

export interface CountedWindows {
  readonly counts: WindowCounts;
  /** Events read (each once, however many windows it counts in). */
  readonly eventsRead: number;
}

/** Thrown when the events of a calculation's windows exceed `maxEvents`: it fails, counted. */
export class TooManyEventsError extends Error {
  constructor(readonly maxEvents: number) {
    super(`The cohort's behavioural filters cover more than ${maxEvents} events; narrow their time windows.`);
    this.name = 'TooManyEventsError';
  }
}

interface Listed {
  readonly timestamp: string;
  readonly owners: string[];
}

/** Every listed event of `event` at or after `since`, by uuid, across the index's shards. */
async function listedSince(
  eventsTable: string,
  projectId: number,
  event: string,
  since: string,
  maxEvents: number,
): Promise<Map<string, Listed>> {
  const listed = new Map<string, Listed>();
  const { name, shards } = eventIndexes.event;
  await Promise.all(
    Array.from({ length: shards }, async (_, shard) => {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await documentClient.send(
          new QueryCommand({
            TableName: eventsTable,
            // A page's sort key starts with its newest timestamp: pages below `since` hold nothing newer.
            KeyConditionExpression: 'PK = :pk AND SK >= :since',
            ExpressionAttributeValues: {
              ':pk': keys.indexPartition(projectId, name, shard, event),
              ':since': since,
            },
            ExclusiveStartKey: start,
          }),
        );
        for (const item of (page.Items ?? []) as IndexPageItem[]) {
          for (const entry of entriesOfPage(item)) {
            if (entry.timestamp < since) continue;
            const known = listed.get(entry.uuid);
            if (known) known.owners.push(item.owner);
            else listed.set(entry.uuid, { timestamp: entry.timestamp, owners: [item.owner] });
          }
        }
        if (listed.size > maxEvents) throw new TooManyEventsError(maxEvents);
        start = page.LastEvaluatedKey;
      } while (start);
    }),
  );
  return listed;
}

/** Counts per window, per distinct id. Windows of one event are read together, from the earliest. */
export async function countWindows(
  eventsTable: string,
  projectId: number,
  windowsByEvent: ReadonlyMap<string, readonly EventWindow[]>,
  maxEvents: number,
): Promise<CountedWindows> {
  const counts: WindowCounts = new Map();
  let total = 0;
  for (const [event, windows] of windowsByEvent) {
    for (const window of windows) counts.set(windowKey(window), new Map());
    const listed = await listedSince(eventsTable, projectId, event, windows[0]!.since, maxEvents - total);
    total += listed.size;
    const items = await batchGetItems<Pick<EventItem, 'uuid' | 'distinct_id' | 'owner'>>(
      eventsTable,
      [...listed.keys()].map((uuid) => keys.event(projectId, uuid)),
      false,
      { expression: '#u, distinct_id, #o', names: { '#u': 'uuid', '#o': 'owner' } },
    );
    for (const item of items) {
      const entry = listed.get(item.uuid);
      // Listed by a delivery that did not store it (a retried batch): the owner's listing counts.
      if (!entry || !entry.owners.includes(item.owner)) continue;
      for (const window of windows) {
        if (entry.timestamp < window.since) break;
        const perId = counts.get(windowKey(window))!;
        perId.set(item.distinct_id, (perId.get(item.distinct_id) ?? 0) + 1);
      }
    }
  }
  return { counts, eventsRead: total };
}
