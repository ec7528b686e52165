/**
 * Event and person property rules of PostHog's ingestion (plugin-server `process-event.ts`, `person-state.ts`).
 */

export type Properties = Record<string, unknown>;

export const isObject = (value: unknown): value is Properties =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `{ ...value }` (own enumerable keys, in order; nothing for null, undefined or a number; a string's
 * characters by index), as a copy that stays quick to add keys to. V8 gives a spread's copy a layout
 * of its own, outside the layouts objects share, so each key added to it later builds another layout:
 * GeoIP's dozen keys cost about 20 µs an event on a spread copy and 1 µs on this one (measured with
 * bench/plugins' events). `Object.assign` onto a fresh literal builds the copy through the shared
 * layouts. It differs from the spread only for an own `__proto__` key (JSON can hold one), which it
 * would take as the copy's prototype: such a value is copied with the spread.
 */
export function copyOf(value: unknown): Properties {
  if (hasOwnProtoKey(value)) return { ...value };
  return Object.assign({}, value);
}

/**
 * Whether `value` has an own key named `__proto__` (JSON can hold one): `Object.assign` would take it
 * as the target's prototype, where a spread copies it as a key.
 */
export function hasOwnProtoKey(value: unknown): value is Properties {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__');
}

/** `$process_person_profile: false` (posthog-js `person_profiles: 'identified_only'`) skips persons. */
export function processesPerson(properties: Properties): boolean {
  return properties.$process_person_profile !== false;
}

/**
 * Top-level `$set`/`$set_once` (posthog-js sends them there on `$identify`) merged into the
 * properties' own; the top-level keys win. A copy (`copyOf`, not a spread: processEvent adds `$ip`,
 * `$set_once` and `$set` to it).
 */
export function mergeTopLevelSets(event: Properties, properties: Properties): Properties {
  return mergeTopLevelSetsInto(event, copyOf(properties));
}

/** `mergeTopLevelSets` into `properties` itself, which the caller owns; returns them. */
export function mergeTopLevelSetsInto(event: Properties, properties: Properties): Properties {
  for (const key of ['$set', '$set_once'] as const) {
    const topLevel = event[key];
    if (isObject(topLevel))
      properties[key] = { ...(isObject(properties[key]) ? properties[key] : {}), ...topLevel };
  }
  return properties;
}

/** The campaign parameters PostHog copies into person properties. */
export const campaignParameters: ReadonlySet<string> = new Set([
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
/** Each copied property's `$initial_<name without $>`, named once rather than per event. */
const initialNames: ReadonlyMap<string, string> = new Map(
  [...campaignParameters, ...initialParameters].map((key) => [key, `$initial_${key.replace('$', '')}`]),
);

/** Event names whose properties never become person properties. */
const notAboutPersons = new Set(['$snapshot', '$performance_event']);

/**
 * PostHog's `personInitialAndUTMProperties` (2022): campaign parameters are copied into `$set`, and
 * they and the browser/OS/URL properties into `$set_once` as `$initial_<name without $>`. Like
 * PostHog, the copied values win over keys the SDK put in `$set`/`$set_once` itself. Changes
 * `properties`, which must be the caller's own copy, and returns it.
 */
export function withInitialAndUtmProperties(eventName: string, properties: Properties): Properties {
  if (notAboutPersons.has(eventName)) return properties;
  let toSet: Properties | undefined;
  let toSetOnce: Properties | undefined;
  for (const key of Object.keys(properties)) {
    const initialName = initialNames.get(key);
    if (initialName === undefined) continue;
    if (campaignParameters.has(key)) (toSet ??= {})[key] = properties[key];
    (toSetOnce ??= {})[initialName] = properties[key];
  }
  // `{ ...$set, ...toSet }`: the copied keys are fixed names, so assigning them equals spreading them.
  if (toSet) properties.$set = Object.assign(copyOf(isObject(properties.$set) ? properties.$set : {}), toSet);
  if (toSetOnce) {
    const setOnce = isObject(properties.$set_once) ? properties.$set_once : {};
    properties.$set_once = Object.assign(copyOf(setOnce), toSetOnce);
  }
  return properties;
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
function definedOnly(values: Properties): Properties {
  const keys = Object.keys(values);
  if (keys.every((key) => values[key] !== undefined)) return values;
  const defined: Properties = {};
  for (const key of keys) if (values[key] !== undefined) defineOwn(defined, key, values[key]);
  return defined;
}

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

/**
 * `target[key] = value` that also works for a key named `__proto__` (JSON allows it). Only that key
 * takes `Object.defineProperty`, which is several times slower than an assignment.
 */
export function defineOwn(target: Properties, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * `value` without `keys`: a copy, where `delete` would leave V8 a slow dictionary for every later
 * read, copy and JSON text of the object (a removed key in the middle does that). Same keys, same order.
 */
export function withoutKeys(value: Properties, keys: ReadonlySet<string>): Properties {
  const kept: Properties = {};
  for (const key of Object.keys(value)) if (!keys.has(key)) defineOwn(kept, key, value[key]);
  return kept;
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
const unsetTimeOf = (unsetTimes: Readonly<Record<string, number>>, key: string): number =>
  ownValue(unsetTimes, key) ?? -Infinity;
const stampOf = (stamps: Readonly<Record<string, PropertyStamp>>, key: string): PropertyStamp =>
  ownValue(stamps, key) ?? beforeStamps;

/**
 * The JSON text of the value a person's properties hold at a key. It is compared with the value of
 * every event of the same millisecond that sets the key (eventValueComes), and writing it out each
 * time cost each such event the value's size: 1.3 ms for a 128 KB object, 0.3 ms for a 150 KB text,
 * 13 s and 3 s of the shared consumer's CPU for a batch of such events. So the text is kept with
 * the properties object, per key, for as long as the key holds the same value (updates replace
 * values, never edit them). Short texts are written out each time: as cheap as looking them up.
 */
type HeldTexts = Map<string, { readonly value: unknown; readonly text: string }>;
const heldTexts = new WeakMap<Properties, HeldTexts>();
const shortTextLength = 1_024;

function heldJsonText(properties: Properties, key: string): string {
  const value = properties[key];
  if (typeof value !== 'object' || value === null) {
    if (typeof value !== 'string' || value.length < shortTextLength) return JSON.stringify(value) ?? '';
  }
  let texts = heldTexts.get(properties);
  const known = texts?.get(key);
  if (known !== undefined && known.value === value) return known.text;
  const text = JSON.stringify(value) ?? '';
  if (!texts) heldTexts.set(properties, (texts = new Map() as HeldTexts));
  texts.set(key, { value, text });
  return text;
}

/**
 * Whether the event's value, given at `at`, comes after the value `properties` hold at `key`, given
 * at `heldAt` (`after`), or the other way round (`before`). Events of the same millisecond are ordered
 * by their values' JSON text: any order, as long as every consumer and replay agrees.
 */
function eventValueComes(
  order: 'after' | 'before',
  at: number,
  value: unknown,
  heldAt: number,
  properties: Properties,
  key: string,
): boolean {
  if (at !== heldAt) return order === 'after' ? at > heldAt : at < heldAt;
  const text = JSON.stringify(value) ?? '';
  const heldText = heldJsonText(properties, key);
  return order === 'after' ? text > heldText : text < heldText;
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
  const copy = {
    properties: { ...current.properties },
    propertyStamps: { ...current.propertyStamps },
    unsetTimes: { ...current.unsetTimes },
  };
  applyTimedPropertyUpdatesTo(copy, updates, at);
  return copy;
}

/** TimedProperties whose objects the caller owns: nothing else holds them. */
export interface OwnedTimedProperties {
  readonly properties: Properties;
  readonly propertyStamps: Record<string, PropertyStamp>;
  readonly unsetTimes: Record<string, number>;
}

/** The keys an event without `$unset` unsets. */
const noKeys: ReadonlySet<string> = new Set();

/**
 * `applyTimedPropertyUpdates` on objects the caller owns, changed in place: a person's events of one
 * batch apply to one copy of its properties rather than each to a copy of the last (20 events with
 * GeoIP's 30 keys each cost 20 copies of the person otherwise). Returns whether the properties
 * themselves changed (a key added, removed, or given another value); stamps may move without that.
 */
export function applyTimedPropertyUpdatesTo(
  owned: OwnedTimedProperties,
  updates: PropertyUpdates,
  at: number,
): boolean {
  const { properties, propertyStamps, unsetTimes } = owned;
  // Stamps are never changed, only replaced: one of each kind serves every key of the event.
  const setStamp: PropertyStamp = { at, once: false };
  const onceStamp: PropertyStamp = { at, once: true };
  // Keys rather than `Object.entries` pairs, and no set when nothing is unset: every event with
  // person updates passes here.
  const unsetHere = updates.unset.length === 0 ? noKeys : new Set(updates.unset);
  const { set, setOnce } = updates;
  let changed = false;
  for (const key of Object.keys(setOnce)) {
    const value = setOnce[key];
    if (at <= unsetTimeOf(unsetTimes, key) || unsetHere.has(key)) continue;
    const stamp = stampOf(propertyStamps, key);
    if (
      !Object.hasOwn(properties, key) ||
      (stamp.once && eventValueComes('before', at, value, stamp.at, properties, key))
    ) {
      changed ||= !Object.hasOwn(properties, key) || !Object.is(properties[key], value);
      defineOwn(properties, key, value);
      defineOwn(propertyStamps, key, onceStamp);
    }
  }
  for (const key of Object.keys(set)) {
    const value = set[key];
    if (at <= unsetTimeOf(unsetTimes, key) || unsetHere.has(key)) continue;
    const stamp = stampOf(propertyStamps, key);
    if (
      Object.hasOwn(properties, key) &&
      !stamp.once &&
      !eventValueComes('after', at, value, stamp.at, properties, key)
    )
      continue;
    changed ||= !Object.hasOwn(properties, key) || !Object.is(properties[key], value);
    defineOwn(properties, key, value);
    defineOwn(propertyStamps, key, setStamp);
    // A `$set` value later than the tombstone makes it moot: older updates already yield to the value.
    delete unsetTimes[key];
  }
  for (const key of updates.unset) {
    if (at > unsetTimeOf(unsetTimes, key)) defineOwn(unsetTimes, key, at);
    if (Object.hasOwn(properties, key) && stampOf(propertyStamps, key).at <= at) {
      delete properties[key];
      delete propertyStamps[key];
      changed = true;
    }
  }
  return changed;
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
