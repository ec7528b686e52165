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

/** `$set`, `$set_once` (objects) and `$unset` (a list of keys, or an object whose keys are used). */
export function propertyUpdatesOf(properties: Properties): PropertyUpdates {
  const unset = properties.$unset;
  return {
    set: isObject(properties.$set) ? properties.$set : {},
    setOnce: isObject(properties.$set_once) ? properties.$set_once : {},
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
