import type { Group } from '../shared/db/groups';
import {
  maxGroupPropertiesBytes,
  putGroup,
  readGroup,
  storableGroup,
  storedGroupTexts,
} from '../shared/db/groups';
import { mapLimited } from '../shared/concurrency';
import type { StoredEvent } from '../shared/domain/event';
import type { OwnedTimedProperties, Properties, TimedProperties } from '../shared/domain/properties';
import {
  applyTimedPropertyUpdates,
  applyTimedPropertyUpdatesTo,
  changedBeyondRefresh,
  isObject,
} from '../shared/domain/properties';
import { logger } from '../shared/logger';
import type { StageFailures } from '../shared/stage-failures';
import { failMessages } from '../shared/stage-failures';
import type { MessageEvents } from './types';

/**
 * Groups as `$groupidentify` sets them (PostHog's plugin-server `upsertGroup`): `$group_set` sets
 * the group's properties, each key by event time (domain/properties.ts, applyTimedPropertyUpdates),
 * so the result does not depend on the order batches arrive in, and a replay changes nothing.
 *
 * Per group of the batch: read it (strongly consistent), apply its events in memory, and write it
 * once, only at the version read (or only if absent); a refused write means another consumer moved
 * first, so the group is read again and re-run (up to `maxAttempts`), then its messages are failed
 * and SQS retries them. A group the events leave unchanged is not written (nor one whose values
 * are only sent again later: changedBeyondRefresh, as for persons). An update that would
 * take the group's properties past `maxGroupPropertiesBytes` is dropped with a warning (the group
 * stays writable), and a group whose type and key do not fit a key is not stored.
 */

const maxAttempts = 4;
const groupsInFlight = 16;

interface GroupEvent {
  readonly groupType: string;
  readonly groupKey: string;
  readonly set: Properties;
  readonly at: number;
  readonly timestamp: string;
}

/** The group update of a `$groupidentify` event, or undefined for any other event. */
export function groupEventOf(event: StoredEvent): GroupEvent | undefined {
  if (event.event !== '$groupidentify') return undefined;
  const { $group_type: groupType, $group_key: key, $group_set: set } = event.properties;
  if (typeof groupType !== 'string' || groupType === '' || groupType.length > 400) return undefined;
  // PostHog stores String($group_key).
  const groupKey = typeof key === 'string' ? key : typeof key === 'number' ? String(key) : '';
  if (groupKey === '') return undefined;
  return {
    groupType,
    groupKey,
    set: isObject(set) ? set : {},
    at: Date.parse(event.timestamp),
    timestamp: event.timestamp,
  };
}

/** An upper bound of what applying `set` adds to the stored texts: each key, value and stamp as new. */
function growthBytes(set: Properties): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(set))
    bytes += 2 * Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(JSON.stringify(value) ?? '') + 24;
  return bytes;
}

/** The group after its events, or undefined when they change nothing. */
function applied(
  projectId: number,
  stored: Group | undefined,
  events: readonly GroupEvent[],
): Group | undefined {
  const first = events[0]!;
  let current: TimedProperties = stored ?? { properties: {}, propertyStamps: {}, unsetTimes: {} };
  // The first update copies what was read (compared with the result below); later ones change that
  // copy in place. A copy per event cost each event the group's size: 1.5 ms an event for a group
  // of 3,000 keys, 15 s of the shared consumer's CPU for a batch of 10,000 `$groupidentify`.
  let own: OwnedTimedProperties | undefined;
  let bytes = storedGroupTexts(current).bytes;
  for (const event of events) {
    const growth = growthBytes(event.set);
    if (bytes + growth > maxGroupPropertiesBytes) {
      logger.warn('Group properties too large: update dropped', {
        projectId,
        groupType: event.groupType,
        bytes: bytes + growth,
      });
      continue;
    }
    const updates = { set: event.set, setOnce: {}, unset: [] };
    if (own) applyTimedPropertyUpdatesTo(own, updates, event.at);
    else current = own = applyTimedPropertyUpdates(current, updates, event.at);
    bytes += growth;
  }
  // The time of its earliest event, whichever batch brought it.
  const createdAt = events.reduce(
    (a, b) => (b.timestamp < a ? b.timestamp : a),
    stored?.createdAt ?? first.timestamp,
  );
  // A `$group_set` of the value a key has, sent again later, only moves its stamp: not worth a write.
  if (stored && stored.createdAt === createdAt && !changedBeyondRefresh(stored, current)) return undefined;
  return {
    ...current,
    groupType: first.groupType,
    groupKey: first.groupKey,
    createdAt,
    version: (stored?.version ?? 0) + 1,
  };
}

/** Writes one group's events; false if other writers kept changing it. */
async function storeGroup(
  tableName: string,
  projectId: number,
  events: readonly GroupEvent[],
): Promise<boolean> {
  const { groupType, groupKey } = events[0]!;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const stored = await readGroup(tableName, projectId, groupType, groupKey);
    const next = applied(projectId, stored, events);
    if (!next || (await putGroup(tableName, projectId, next, stored?.version))) return true;
  }
  return false;
}

/** Stores the groups of every `$groupidentify` in the batch; returns the messages that must be retried. */
export async function storeGroups(
  tableName: string,
  messages: readonly MessageEvents[],
): Promise<StageFailures> {
  const groups = new Map<string, { projectId: number; events: GroupEvent[]; messageIds: Set<string> }>();
  for (const message of messages) {
    for (const stored of message.events) {
      const event = groupEventOf(stored);
      if (!event || !storableGroup(message.projectId, event.groupType, event.groupKey)) continue;
      const id = JSON.stringify([message.projectId, event.groupType, event.groupKey]);
      const group = groups.get(id) ?? { projectId: message.projectId, events: [], messageIds: new Set() };
      group.events.push(event);
      group.messageIds.add(message.messageId);
      groups.set(id, group);
    }
  }
  const failed: StageFailures = new Map();
  await mapLimited([...groups.values()], groupsInFlight, async ({ projectId, events, messageIds }) => {
    try {
      if (await storeGroup(tableName, projectId, events)) return;
      failMessages(failed, [...messageIds], new Error(`Group kept changing under ${maxAttempts} attempts`));
    } catch (error) {
      logger.error('Writing a group failed', { projectId, reason: String(error) });
      failMessages(failed, [...messageIds], error);
    }
  });
  return failed;
}
