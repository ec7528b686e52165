/**
 * Event and person property rules of PostHog's ingestion (reference §1.8.2, §1.8.10, §4).
 */

export type Properties = Record<string, unknown>;

export const isObject = (value: unknown): value is Properties =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `$process_person_profile: false` (posthog-js `person_profiles: 'identified_only'`) skips persons. */
export function processesPerson(properties: Properties): boolean {
  return properties.$process_person_profile !== false;
}

/**
 * Top-level `$set`/`$set_once` (posthog-js sends them there on `$identify`) merged into the
 * properties' own; the top-level keys win.
 */
export function mergeTopLevelSets(event: Properties, properties: Properties): Properties {
  const merged = { ...properties };
  for (const key of ['$set', '$set_once'] as const) {
    const topLevel = event[key];
    if (isObject(topLevel))
      merged[key] = { ...(isObject(properties[key]) ? properties[key] : {}), ...topLevel };
  }
  return merged;
}

const campaignParameters = new Set([
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_term',
  'gclid',
]);
const initialParameters = new Set([
  '$browser',
  '$browser_version',
  '$device_type',
  '$current_url',
  '$os',
  '$referring_domain',
  '$referrer',
]);

/** Event names whose properties never become person properties. */
const notAboutPersons = new Set(['$snapshot', '$performance_event']);

/**
 * PostHog's `personInitialAndUTMProperties` (2022): campaign parameters are copied into `$set`, and
 * they and the browser/OS/URL properties into `$set_once` as `$initial_<name without $>`. Like
 * PostHog, the copied values win over keys the SDK put in `$set`/`$set_once` itself.
 */
export function withInitialAndUtmProperties(eventName: string, properties: Properties): Properties {
  if (notAboutPersons.has(eventName)) return properties;
  const entries = Object.entries(properties);
  const toSet = entries.filter(([key]) => campaignParameters.has(key));
  const toSetOnce = entries
    .filter(([key]) => campaignParameters.has(key) || initialParameters.has(key))
    .map(([key, value]) => [`$initial_${key.replace('$', '')}`, value] as const);
  const result = { ...properties };
  if (toSet.length > 0) {
    result.$set = { ...(isObject(properties.$set) ? properties.$set : {}), ...Object.fromEntries(toSet) };
  }
  if (toSetOnce.length > 0) {
    result.$set_once = {
      ...(isObject(properties.$set_once) ? properties.$set_once : {}),
      ...Object.fromEntries(toSetOnce),
    };
  }
  return result;
}

/** What one event does to its person's properties. */
export interface PropertyUpdates {
  readonly set: Properties;
  readonly setOnce: Properties;
  readonly unset: readonly string[];
}

/**
 * The entries with a value. `undefined` is not a JSON value: a plugin that assigns it (GeoIP, for the
 * fields its database lacks) leaves the key out of the stored event, so it must update nothing either.
 * Applied, it would stamp a key the stored person never holds, and every batch would rewrite the person.
 */
const definedOnly = (values: Properties): Properties =>
  Object.values(values).includes(undefined)
    ? Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined))
    : values;

/** `$set`, `$set_once` (objects) and `$unset` (a list of keys, or an object whose keys are used). */
export function propertyUpdatesOf(properties: Properties): PropertyUpdates {
  const unset = properties.$unset;
  return {
    set: isObject(properties.$set) ? definedOnly(properties.$set) : {},
    setOnce: isObject(properties.$set_once) ? definedOnly(properties.$set_once) : {},
    unset: Array.isArray(unset) ? unset.map(String) : isObject(unset) ? Object.keys(unset) : [],
  };
}

/** Structural equality of JSON values (property values come from JSON). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every(
    (key) => Object.hasOwn(b, key) && sameJson((a as Properties)[key], (b as Properties)[key]),
  );
}

/** `target[key] = value` that also works for a key named `__proto__` (JSON allows it). */
function defineOwn(target: Properties, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Applies one event's updates to a person's properties, in PostHog's order: `$set_once` (only keys the
 * person lacks), then `$set` (keys whose value differs), then `$unset`. Returns the new properties and
 * whether anything changed; applying the same updates twice changes nothing the second time.
 */
export function applyPropertyUpdates(
  current: Properties,
  updates: PropertyUpdates,
): { properties: Properties; changed: boolean } {
  const properties = { ...current };
  let changed = false;
  for (const [key, value] of Object.entries(updates.setOnce)) {
    if (!Object.hasOwn(properties, key) || properties[key] === undefined) {
      defineOwn(properties, key, value);
      changed = true;
    }
  }
  for (const [key, value] of Object.entries(updates.set)) {
    if (!Object.hasOwn(properties, key) || !sameJson(properties[key], value)) {
      defineOwn(properties, key, value);
      changed = true;
    }
  }
  for (const key of updates.unset) {
    if (Object.hasOwn(properties, key)) {
      delete properties[key];
      changed = true;
    }
  }
  return { properties, changed };
}

/** When a person property got its value: the event's time (epoch ms) and whether `$set_once` gave it. */
export interface PropertyStamp {
  readonly at: number;
  readonly once: boolean;
}

/**
 * A person's properties with what makes their updates independent of the order events are processed
 * in (applyTimedPropertyUpdates): SQS does not keep one distinct id's events in order, as PostHog's
 * Kafka partitions do, so event times decide instead.
 */
export interface TimedProperties {
  readonly properties: Properties;
  /**
   * Per key with a value: when and how it got it. A value without a stamp was stored before stamps
   * existed and counts as a `$set` older than any event.
   */
  readonly propertyStamps: Readonly<Record<string, PropertyStamp>>;
  /** Per key: the time of its latest `$unset` that can still matter (a tombstone). */
  readonly unsetTimes: Readonly<Record<string, number>>;
}

const ownValue = <T>(record: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;

const beforeStamps: PropertyStamp = { at: -Infinity, once: false };

/**
 * Whether a value given at `aAt` comes after one given at `bAt`. Events of the same millisecond are
 * ordered by their values' JSON text: any order, as long as every consumer and replay agrees.
 */
function comesAfter(aAt: number, aValue: unknown, bAt: number, bValue: unknown): boolean {
  if (aAt !== bAt) return aAt > bAt;
  return (JSON.stringify(aValue) ?? '') > (JSON.stringify(bValue) ?? '');
}

/**
 * Applies one event's updates, made at `at` (epoch ms), so that the result does not depend on the
 * order events are applied in: each key is a last-writer-wins register over event times, which gives
 * what PostHog's sequential rules (applyPropertyUpdates) give on the events sorted by time.
 *
 * - `$set k` applies if it is later than the key's `$set` value (a `$set_once` value always yields)
 *   and than the key's tombstone.
 * - `$set_once k` applies if the key has no `$set` value and no earlier `$set_once` value (the
 *   earliest one wins), and it is later than the tombstone.
 * - `$unset k` raises the tombstone to `at` and removes a value given at or before `at`. Within one
 *   event PostHog applies `$set_once`, `$set`, then `$unset`, so at equal times the `$unset` wins,
 *   and an event's `$set`/`$set_once` of a key it also unsets do nothing.
 *
 * One order dependence remains here, for want of keeping every `$set_once` ever sent: a `$set_once`
 * yields to a `$set` (and to an earlier value) whatever their times, and if an `$unset` timed between
 * that value and the `$set_once` is applied after both, it removes the value, and the `$set_once` is
 * no longer there to take its place. (changedBeyondRefresh adds one, by what it leaves unwritten.)
 */
export function applyTimedPropertyUpdates(
  current: TimedProperties,
  updates: PropertyUpdates,
  at: number,
): TimedProperties {
  const properties = { ...current.properties };
  const propertyStamps = { ...current.propertyStamps };
  const unsetTimes = { ...current.unsetTimes };
  const unsetAt = (key: string): number => ownValue(unsetTimes, key) ?? -Infinity;
  const stampOf = (key: string): PropertyStamp => ownValue(propertyStamps, key) ?? beforeStamps;
  const give = (key: string, value: unknown, once: boolean): void => {
    defineOwn(properties, key, value);
    defineOwn(propertyStamps, key, { at, once });
  };
  const unsetHere = new Set(updates.unset);
  for (const [key, value] of Object.entries(updates.setOnce)) {
    if (at <= unsetAt(key) || unsetHere.has(key)) continue;
    const stamp = stampOf(key);
    if (!Object.hasOwn(properties, key) || (stamp.once && comesAfter(stamp.at, properties[key], at, value)))
      give(key, value, true);
  }
  for (const [key, value] of Object.entries(updates.set)) {
    if (at <= unsetAt(key) || unsetHere.has(key)) continue;
    const stamp = stampOf(key);
    if (Object.hasOwn(properties, key) && !stamp.once && !comesAfter(at, value, stamp.at, properties[key]))
      continue;
    give(key, value, false);
    // A `$set` value later than the tombstone makes it moot: older updates already yield to the value.
    delete unsetTimes[key];
  }
  for (const key of updates.unset) {
    if (at > unsetAt(key)) defineOwn(unsetTimes, key, at);
    if (Object.hasOwn(properties, key) && stampOf(key).at <= at) {
      delete properties[key];
      delete propertyStamps[key];
    }
  }
  return { properties, propertyStamps, unsetTimes };
}

/**
 * Whether `current` differs from `stored` in a way worth a write. A `$set` of the value a key already
 * has from `$set`, sent again later, only moves the key's stamp: the same `$set` on every event would
 * otherwise cost a person write per batch. The moved stamp is stored with the next real change; until
 * then a `$set` of another value or an `$unset`, timed between the two sends and applied after the
 * second, acts as if the value had been sent only once (the other order dependence left).
 */
export function changedBeyondRefresh(stored: TimedProperties, current: TimedProperties): boolean {
  if (!sameJson(stored.properties, current.properties) || !sameJson(stored.unsetTimes, current.unsetTimes))
    return true;
  for (const [key, stamp] of Object.entries(current.propertyStamps)) {
    const before = ownValue(stored.propertyStamps, key) ?? beforeStamps;
    const refreshed = !before.once && !stamp.once && stamp.at >= before.at;
    if (!refreshed && (before.at !== stamp.at || before.once !== stamp.once)) return true;
  }
  return false;
}

/**
 * The properties of a merge's survivor, by PostHog's rule: its own values win over the merged
 * person's. Values taken from the merged person keep their stamps, and each key keeps the later of
 * the two tombstones, so updates applied afterwards still resolve by event time. Absorbing the same
 * person twice gives the same result.
 */
export function mergeTimedProperties(into: TimedProperties, from: TimedProperties): TimedProperties {
  const properties = { ...from.properties, ...into.properties };
  const propertyStamps: Record<string, PropertyStamp> = {};
  for (const key of Object.keys(properties)) {
    const source = Object.hasOwn(into.properties, key) ? into : from;
    const stamp = ownValue(source.propertyStamps, key);
    if (stamp) defineOwn(propertyStamps, key, stamp);
  }
  const unsetTimes = { ...from.unsetTimes };
  for (const [key, time] of Object.entries(into.unsetTimes))
    if (time > (ownValue(unsetTimes, key) ?? -Infinity)) defineOwn(unsetTimes, key, time);
  return { properties, propertyStamps, unsetTimes };
}
