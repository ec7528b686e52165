import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Person } from '../domain/persons';
import { maxForwardingHops, personUuidFor } from '../domain/persons';
import type { PropertyStamp } from '../domain/properties';
import { documentClient } from './client';
import { keys } from './keys';
import { atVersion, batchGetItems, conditionally, projectionOf } from './operations';

/**
 * Persons and their distinct ids (keys.ts): a distinct id item maps one distinct id to a person uuid;
 * a person item holds properties, distinct ids and a version. Every write is conditional, and says
 * whether its condition held (`false`), so the caller can re-read and retry: there are no transactions.
 */

export interface DistinctIdItem {
  PK: string;
  SK: string;
  project: number;
  distinct_id: string;
  person: string;
}

export interface PersonItem {
  PK: string;
  SK: string;
  uuid: string;
  project: number;
  created_at: string;
  is_identified: boolean;
  /** Properties as JSON text (removed from a merged person once the survivor holds them). */
  props?: string;
  /**
   * When and how each property got its value (PropertyTimes as JSON text); absent on items written
   * before property times existed, whose values count as older than any event.
   */
  prop_times?: string;
  /** Tombstones of `$unset` keys as JSON text `{"key":epoch ms}`; absent when there are none. */
  unset_times?: string;
  distinct_ids: string[];
  version: number;
  merged_into?: string;
  absorbed?: boolean;
}

/**
 * Property stamps without repeating the property names (they can be long, and most share the time
 * of one event): `stamps` lists each distinct `[epoch ms, 1 for $set | 0 for $set_once]` once, and
 * `of[n]` is the stamp index of the n-th key of `props` (-1: none). `props` is written and parsed
 * with the same key order, so the two line up; if they ever do not, the stamps are ignored.
 */
interface PropertyTimes {
  stamps: [at: number, bySet: 0 | 1][];
  of: number[];
}

const jsonUnlessEmpty = (record: Readonly<Record<string, unknown>>): string | undefined =>
  Object.keys(record).length > 0 ? JSON.stringify(record) : undefined;

function propTimesOf(person: Person): string | undefined {
  const stamps: PropertyTimes['stamps'] = [];
  const indexOf = new Map<string, number>();
  const of = Object.keys(person.properties).map((key) => {
    if (!Object.hasOwn(person.propertyStamps, key)) return -1;
    const { at, once } = person.propertyStamps[key]!;
    const id = `${at} ${once}`;
    if (!indexOf.has(id)) indexOf.set(id, stamps.push([at, once ? 0 : 1]) - 1);
    return indexOf.get(id)!;
  });
  return stamps.length > 0 ? JSON.stringify({ stamps, of } satisfies PropertyTimes) : undefined;
}

function stampsOf(
  properties: Record<string, unknown>,
  propTimes: string | undefined,
): Record<string, PropertyStamp> {
  if (!propTimes) return {};
  const { stamps, of } = JSON.parse(propTimes) as PropertyTimes;
  const keys = Object.keys(properties);
  if (of.length !== keys.length) return {};
  return Object.fromEntries(
    keys.flatMap((key, n) => {
      const stamp = stamps[of[n]!];
      return stamp ? [[key, { at: stamp[0], once: stamp[1] === 0 }]] : [];
    }),
  );
}

export function toPersonItem(projectId: number, person: Person): PersonItem {
  const propTimes = propTimesOf(person);
  const unsetTimes = jsonUnlessEmpty(person.unsetTimes);
  return {
    ...keys.person(projectId, person.uuid),
    uuid: person.uuid,
    project: projectId,
    created_at: person.createdAt,
    is_identified: person.isIdentified,
    props: JSON.stringify(person.properties),
    ...(propTimes !== undefined ? { prop_times: propTimes } : {}),
    ...(unsetTimes !== undefined ? { unset_times: unsetTimes } : {}),
    distinct_ids: [...person.distinctIds],
    version: person.version,
    ...(person.mergedInto !== undefined
      ? { merged_into: person.mergedInto, absorbed: person.absorbed === true }
      : {}),
  };
}

export function fromPersonItem(item: PersonItem): Person {
  const properties = item.props ? (JSON.parse(item.props) as Record<string, unknown>) : {};
  return {
    uuid: item.uuid,
    createdAt: item.created_at,
    isIdentified: item.is_identified,
    properties,
    propertyStamps: stampsOf(properties, item.prop_times),
    unsetTimes: item.unset_times ? (JSON.parse(item.unset_times) as Record<string, number>) : {},
    distinctIds: item.distinct_ids ?? [],
    version: item.version,
    ...(item.merged_into !== undefined
      ? { mergedInto: item.merged_into, absorbed: item.absorbed === true }
      : {}),
  };
}

/** Distinct id → person uuid for those of `distinctIds` that have a mapping (strongly consistent). */
export async function readDistinctIds(
  tableName: string,
  projectId: number,
  distinctIds: readonly string[],
  consistentRead = true,
): Promise<Map<string, string>> {
  const items = await batchGetItems<DistinctIdItem>(
    tableName,
    [...new Set(distinctIds)].map((distinctId) => keys.personDistinctId(projectId, distinctId)),
    consistentRead,
  );
  return new Map(items.map((item) => [item.distinct_id, item.person]));
}

/** Persons by uuid, merged ones included (strongly consistent). Absent uuids are missing from the map. */
export async function readPersons(
  tableName: string,
  projectId: number,
  personUuids: readonly string[],
  consistentRead = true,
): Promise<Map<string, Person>> {
  const items = await batchGetItems<PersonItem>(
    tableName,
    [...new Set(personUuids)].map((uuid) => keys.person(projectId, uuid)),
    consistentRead,
  );
  return new Map(items.map((item) => [item.uuid, fromPersonItem(item)]));
}

/** Maps a distinct id to a person, only if no mapping exists: whoever writes it first owns the id. */
export async function claimDistinctId(
  tableName: string,
  projectId: number,
  distinctId: string,
  personUuid: string,
): Promise<boolean> {
  const item: DistinctIdItem = {
    ...keys.personDistinctId(projectId, distinctId),
    project: projectId,
    distinct_id: distinctId,
    person: personUuid,
  };
  return conditionally(() =>
    documentClient.send(
      new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }),
    ),
  );
}

/** Moves a distinct id from a merged person to the survivor, only if it still points at the merged one. */
export async function repointDistinctId(
  tableName: string,
  projectId: number,
  distinctId: string,
  from: string,
  to: string,
): Promise<boolean> {
  return conditionally(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.personDistinctId(projectId, distinctId),
        UpdateExpression: 'SET person = :to',
        ConditionExpression: 'person = :from',
        ExpressionAttributeValues: { ':from': from, ':to': to },
      }),
    ),
  );
}

/**
 * Writes a person whole (its `version` already the next one), only if the stored one is still at
 * `expectedVersion`, or, when that is undefined, only if there is none yet.
 */
export async function putPerson(
  tableName: string,
  projectId: number,
  person: Person,
  expectedVersion: number | undefined,
): Promise<boolean> {
  const condition = atVersion(expectedVersion);
  return conditionally(() =>
    documentClient.send(
      new PutCommand({ TableName: tableName, Item: toPersonItem(projectId, person), ...condition }),
    ),
  );
}

/**
 * Records that a merged person's survivor holds its properties, and drops them (with their times)
 * from the merged item.
 */
export async function markPersonAbsorbed(
  tableName: string,
  projectId: number,
  personUuid: string,
  mergedInto: string,
): Promise<boolean> {
  return conditionally(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.person(projectId, personUuid),
        UpdateExpression: 'SET absorbed = :true REMOVE props, prop_times, unset_times',
        ConditionExpression: 'merged_into = :into',
        ExpressionAttributeValues: { ':true': true, ':into': mergedInto },
      }),
    ),
  );
}

/** Follows merged persons to the live one (eventually consistent reads: for the API). */
async function liveFrom(
  tableName: string,
  projectId: number,
  uuid: string | undefined,
): Promise<Person | undefined> {
  for (let hop = 0; uuid !== undefined && hop <= maxForwardingHops; hop++) {
    const person = (await readPersons(tableName, projectId, [uuid], false)).get(uuid);
    if (!person || person.mergedInto === undefined) return person;
    uuid = person.mergedInto;
  }
  return undefined;
}

/** The person a distinct id belongs to, or undefined (for the events API's `person`). */
export async function getPersonByDistinctId(
  tableName: string,
  projectId: number,
  distinctId: string,
): Promise<Person | undefined> {
  const mapping = await readDistinctIds(tableName, projectId, [distinctId], false);
  return liveFrom(tableName, projectId, mapping.get(distinctId));
}

/** The persons of many distinct ids at once (one page of events): distinct id → person. */
export async function getPersonsByDistinctIds(
  tableName: string,
  projectId: number,
  distinctIds: readonly string[],
): Promise<Map<string, Person>> {
  const mapping = await readDistinctIds(tableName, projectId, distinctIds, false);
  const persons = await readPersons(tableName, projectId, [...mapping.values()], false);
  const result = new Map<string, Person>();
  await Promise.all(
    [...mapping].map(async ([distinctId, uuid]) => {
      const direct = persons.get(uuid);
      const person =
        direct && direct.mergedInto === undefined ? direct : await liveFrom(tableName, projectId, uuid);
      if (person) result.set(distinctId, person);
    }),
  );
  return result;
}

/** A live person by uuid; a merged person's uuid gives undefined, as PostHog's deleted person would. */
export async function getPerson(
  tableName: string,
  projectId: number,
  personUuid: string,
): Promise<Person | undefined> {
  const person = (await readPersons(tableName, projectId, [personUuid], false)).get(personUuid);
  return person && person.mergedInto === undefined ? person : undefined;
}

/** The distinct ids of a live person (for the events API's `person_id` filter), or undefined. */
export async function getDistinctIdsOfPerson(
  tableName: string,
  projectId: number,
  personUuid: string,
): Promise<readonly string[] | undefined> {
  return (await getPerson(tableName, projectId, personUuid))?.distinctIds;
}

/** What the events API shows of a person (`posthog/api/event.py`'s `person`), and what its filters read. */
export interface ShownPerson {
  readonly uuid: string;
  readonly distinctIds: readonly string[];
  readonly isIdentified: boolean;
  readonly properties: Record<string, unknown>;
}

/**
 * Only what a shown person needs: not the property times, unset tombstones, version and keys, which
 * on a person of many properties are a large part of the item.
 */
const shownPersonAttributes = [
  'uuid',
  'distinct_ids',
  'is_identified',
  'props',
  'merged_into',
] as const satisfies readonly (keyof PersonItem)[];
type ShownPersonItem = Pick<PersonItem, (typeof shownPersonAttributes)[number]>;
const shownPersonProjection = projectionOf(shownPersonAttributes);

const mappingAttributes = ['distinct_id', 'person'] as const satisfies readonly (keyof DistinctIdItem)[];
const mappingProjection = projectionOf(mappingAttributes);

const shownPersonOf = (item: ShownPersonItem): ShownPerson => ({
  uuid: item.uuid,
  distinctIds: item.distinct_ids ?? [],
  isIdentified: item.is_identified,
  properties: item.props ? (JSON.parse(item.props) as Record<string, unknown>) : {},
});

/** Person items by uuid, projected for showing, eventually consistent. */
async function readShownPersonItems(
  tableName: string,
  projectId: number,
  uuids: Iterable<string>,
): Promise<Map<string, ShownPersonItem>> {
  const items = await batchGetItems<ShownPersonItem>(
    tableName,
    [...new Set(uuids)].map((uuid) => keys.person(projectId, uuid)),
    false,
    shownPersonProjection,
  );
  return new Map(items.map((item) => [item.uuid, item]));
}

/**
 * Where a caller has found the persons of distinct ids before (its own memory of earlier reads): a
 * hinted uuid is read instead of the derived one, and answers on the same terms (live, listing the
 * distinct id), so a stale hint costs one read, never a wrong person.
 */
export interface PersonHints {
  get(distinctId: string): string | undefined;
  /** The live person a distinct id's mapping led to. */
  set(distinctId: string, personUuid: string): void;
  /** The distinct id has no person (any more). */
  delete(distinctId: string): void;
}

/**
 * The persons of many distinct ids (a page of events), as the events API shows them: distinct id →
 * live person, absent for a distinct id with none.
 *
 * A new person's uuid is derived from its first distinct id (`personUuidFor`), so most distinct ids
 * (every one a person was created for) are answered by one read of the person item they name, without
 * the distinct id's mapping. That item is the mapping's answer when it is live and lists the distinct
 * id: a person lists a distinct id only once the id's mapping leads to it (the consumer claims a
 * mapping before it writes the person, `functions/consumer/persons.ts`), and a mapping only ever moves
 * from a merged person to the one it merged into, so while the person stays live (a merged person
 * never becomes live again) the mapping still leads to it. The other distinct ids (one added to an
 * existing person by `$identify` or an alias, or whose derived person was merged away or never
 * written) are looked up as before: the mapping, then the person, following merged persons.
 * Eventually consistent, as every read of the events API. `hints` name the person to read first for
 * the distinct ids they know, and learn what the mappings said.
 */
export async function getShownPersonsByDistinctIds(
  tableName: string,
  projectId: number,
  distinctIds: readonly string[],
  hints?: PersonHints,
): Promise<Map<string, ShownPerson>> {
  const unique = [...new Set(distinctIds)];
  const candidates = new Map(
    unique.map((distinctId) => [distinctId, hints?.get(distinctId) ?? personUuidFor(projectId, distinctId)]),
  );
  const items = await readShownPersonItems(tableName, projectId, candidates.values());
  const result = new Map<string, ShownPerson>();
  const shown = new Map<string, ShownPerson>();
  const showing = (item: ShownPersonItem): ShownPerson => {
    let person = shown.get(item.uuid);
    if (!person) shown.set(item.uuid, (person = shownPersonOf(item)));
    return person;
  };
  const rest: string[] = [];
  for (const distinctId of unique) {
    const item = items.get(candidates.get(distinctId)!);
    if (item && item.merged_into === undefined && item.distinct_ids?.includes(distinctId))
      result.set(distinctId, showing(item));
    else rest.push(distinctId);
  }
  if (rest.length === 0) return result;
  const mappings = await batchGetItems<Pick<DistinctIdItem, (typeof mappingAttributes)[number]>>(
    tableName,
    rest.map((distinctId) => keys.personDistinctId(projectId, distinctId)),
    false,
    mappingProjection,
  );
  // Follow each mapping to its live person, reading each hop's persons at once.
  let pending = new Map(mappings.map((mapping) => [mapping.distinct_id, mapping.person]));
  for (let hop = 0; pending.size > 0 && hop <= maxForwardingHops; hop++) {
    const unread = [...new Set(pending.values())].filter((uuid) => !items.has(uuid));
    if (unread.length > 0)
      for (const [uuid, item] of await readShownPersonItems(tableName, projectId, unread))
        items.set(uuid, item);
    const next = new Map<string, string>();
    for (const [distinctId, uuid] of pending) {
      const item = items.get(uuid);
      if (!item) continue;
      if (item.merged_into === undefined) result.set(distinctId, showing(item));
      else next.set(distinctId, item.merged_into);
    }
    pending = next;
  }
  for (const distinctId of rest) {
    const person = result.get(distinctId);
    if (person) hints?.set(distinctId, person.uuid);
    else hints?.delete(distinctId);
  }
  return result;
}
