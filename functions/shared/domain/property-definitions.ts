import { nameUuid } from './name-uuid';
import { campaignParameters } from './properties';

/**
 * Property definitions as PostHog's ingestion keeps them (plugin-server
 * `src/worker/ingestion/property-definitions-manager.ts` and `property-definitions-auto-discovery.ts`):
 * one definition per (project, kind, name), created when the name is first seen, its `property_type`
 * detected from that first value and never changed afterwards.
 */

export type PropertyType = 'String' | 'Numeric' | 'Boolean' | 'DateTime';

/** What a definition describes: an event's property or a person's (set by `$set`/`$set_once`). */
export type PropertyDefinitionKind = 'event' | 'person';

const unixTimestampPatterns = [/^\d{10}(\.\d*)?$/, /^\d{13}$/];

const dateTimePatterns = [
  /^\d{4}-\d{2}-\d{2}$/,
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?(?:\d{2})?)$/i,
  /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
  /^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/,
  /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/,
  /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/,
  /^((mon|tue|wed|thu|fri|sat|sun), )?\d{2} (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec) \d{4} \d{2}:\d{2}:\d{2}( [+|-]\d{4})?$/i,
];

/**
 * PostHog's `detectPropertyDefinitionTypes(value, key)`:
 * - `utm_…` keys, `$feature/…` keys and `$feature_flag_response` are always String (their first
 *   value often looks like a number or a boolean when later ones do not);
 * - a number is Numeric, or DateTime when the key contains `time` and it has 10 digits (seconds,
 *   optionally with a fraction) or 13 (milliseconds);
 * - a string is DateTime when it matches one of the date formats above, else String;
 * - a boolean, or the string `true`/`false` (any case, trimmed), is Boolean;
 * - anything else (null, arrays, objects) has no type.
 * Every pattern is anchored and linear, so detection costs at most a pass over the value.
 */
export function detectPropertyType(value: unknown, key: string): PropertyType | null {
  if (/^utm_/i.test(key) || key.startsWith('$feature/') || key === '$feature_flag_response') return 'String';
  let type: PropertyType | null = null;
  if (typeof value === 'number') {
    type = 'Numeric';
    if (
      key.toLowerCase().includes('time') &&
      unixTimestampPatterns.some((pattern) => pattern.test(String(value)))
    )
      type = 'DateTime';
  }
  if (typeof value === 'string') {
    type = dateTimePatterns.some((pattern) => pattern.test(value)) ? 'DateTime' : 'String';
  }
  if (
    typeof value === 'boolean' ||
    (typeof value === 'string' && ['true', 'false'].includes(value.trim().toLowerCase()))
  )
    type = 'Boolean';
  return type;
}

/** Keys PostHog uses to change persons and groups: never event property definitions. */
const notSyncedEventProperties = new Set([
  '$set',
  '$set_once',
  '$unset',
  '$group_0',
  '$group_1',
  '$group_2',
  '$group_3',
  '$group_4',
  '$groups',
]);

/**
 * PostHog skips names longer than its 400-character column; DynamoDB keys hold 1,024 bytes, so a
 * name is also at most 800 UTF-8 bytes (the rest of its key is short).
 */
export function fitsDefinition(name: string): boolean {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: a name of up to 266 units fits without counting.
  return name.length <= 266 || (name.length <= 400 && Buffer.byteLength(name) <= 800);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The properties an event defines, in order: its own (but not the person/group keys), then the
 * person properties of its `$set` and `$set_once`, each handed to `visit`. `$groupidentify` defines
 * group properties only, which Flock does not keep definitions of, so none. Own keys of plain objects
 * only. A visitor, not a list: the consumer looks at every property of every event, and a list of
 * `Object.entries` pairs and of their descriptions was garbage of a few dozen objects per event.
 */
export function forEachPropertySeenIn(
  eventName: string,
  properties: Record<string, unknown>,
  visit: (kind: PropertyDefinitionKind, name: string, value: unknown) => void,
): void {
  if (eventName === '$groupidentify') return;
  for (const name of Object.keys(properties)) {
    if (!notSyncedEventProperties.has(name) && fitsDefinition(name)) visit('event', name, properties[name]);
  }
  for (const key of ['$set', '$set_once'] as const) {
    const set = properties[key];
    if (!isPlainObject(set)) continue;
    for (const name of Object.keys(set)) {
      if (fitsDefinition(name)) visit('person', name, set[name]);
    }
  }
}

const propertyDefinitionNamespace = 'c5d4c0f4-6f43-4b8e-9f3f-2f0e7a5b9d21';

/** A definition's id: the same for the same (project, kind, name), so replays write the same item. */
export function propertyDefinitionIdFor(
  projectId: number,
  kind: PropertyDefinitionKind,
  name: string,
): string {
  return nameUuid(`${projectId}:${kind}:${name}`, propertyDefinitionNamespace);
}

/** At most this many definitions per project (of both kinds): new names beyond it get none. */
export const maxPropertyDefinitionsPerProject = 10_000;

/** Properties PostHog lists but never for choosing (`HIDDEN_PROPERTY_DEFINITIONS` of its API). */
export const hiddenPropertyDefinitions: ReadonlySet<string> = new Set([
  'distinct_id',
  '$set',
  '$set_once',
  '$groups',
  '$group_type',
  '$group_key',
  '$group_set',
  '$group_0',
  '$group_1',
  '$group_2',
  '$group_3',
  '$group_4',
]);

/** Campaign parameters PostHog's taxonomy defines besides its `$` properties. */
const coreCampaignProperties = new Set([
  ...campaignParameters,
  'gad_source',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'twclid',
  'li_fat_id',
  'mc_cid',
  'igshid',
  'ttclid',
]);

/**
 * Whether `exclude_core_properties` drops a name: PostHog drops the names of its taxonomy (the
 * properties its SDKs and ingestion set, almost all `$…`, plus the campaign parameters); Flock drops
 * every `$…` name and those campaign parameters.
 */
export function isCoreProperty(name: string): boolean {
  return name.startsWith('$') || coreCampaignProperties.has(name);
}
