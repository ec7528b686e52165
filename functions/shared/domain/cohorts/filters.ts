import type { PropertyFilter, PropertyGroup } from '../flags/types';
import { personFilterOperators } from '../person-filters';

/**
 * Cohort definitions: the `filters` tree (PostHog's current format) and the legacy `groups` list,
 * validated with every error a 400 naming what is wrong (PostHog answers 500 to bad `groups`), and
 * `groups` converted to the tree on read as PostHog's `Cohort.properties` does.
 *
 * Tree: `{properties: Group}`, Group = `{type: "AND"|"OR", values: [Group | Filter]}`, Filter one of
 *   person      {type, key, value?, operator?, negation?}
 *   cohort      {type, key: "id", value: <cohort id>, negation?}
 *   behavioral  {type, key: <event name>, value: performed_event | performed_event_multiple,
 *                event_type: "events", time_value + time_interval | explicit_datetime,
 *                operator?, operator_value (…_multiple), negation?}
 * Flock evaluates the two simple behavioural values from stored events; the others PostHog calls
 * analytical (first time, sequence, regularly, stopped, restarted) and actions (Flock has none) are
 * refused by name.
 */

/** Thrown with PostHog's wording; the route turns it into a 400 on `attr`. */
export class CohortDefinitionError extends Error {
  constructor(
    message: string,
    readonly attr: 'filters' | 'groups' | null = 'filters',
    readonly code = 'invalid_input',
  ) {
    super(message);
    this.name = 'CohortDefinitionError';
  }
}

export interface CohortFilters {
  readonly properties: PropertyGroup | Record<string, never>;
}

export const timeIntervals = ['hour', 'day', 'week', 'month', 'year'] as const;
type TimeInterval = (typeof timeIntervals)[number];
const supportedBehaviors = ['performed_event', 'performed_event_multiple'] as const;
const analyticalBehaviors = [
  'performed_event_first_time',
  'performed_event_sequence',
  'performed_event_regularly',
  'stopped_performing_event',
  'restarted_performing_event',
];
/** `operator` of performed_event_multiple → comparison (PostHog's count operators). */
export const countOperators = ['gte', 'lte', 'gt', 'lt', 'eq', 'exact'] as const;

/** Bounds: a definition is one item of a DynamoDB table, and a tree is walked on every evaluation. */
export const cohortDefinitionLimits = { bytes: 64 * 1024, depth: 10, leaves: 200 } as const;

const personKeys = new Set(['type', 'key', 'value', 'operator', 'negation']);
const cohortKeys = new Set(['type', 'key', 'value', 'negation']);
const behavioralKeys = new Set([
  'type',
  'key',
  'value',
  'event_type',
  'time_value',
  'time_interval',
  'explicit_datetime',
  'operator',
  'operator_value',
  'negation',
  'event_filters',
  'seq_event',
  'seq_event_type',
  'seq_time_value',
  'seq_time_interval',
  'total_periods',
  'min_periods',
]);
const personOperators: ReadonlySet<string> = new Set(personFilterOperators);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isGroupNode = (value: Json): boolean => 'values' in value && !('key' in value);

/** A cohort id as filters write it: an integer or its decimal text. */
export function cohortIdOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return undefined;
}

interface Walk {
  leaves: number;
  readonly cohortIds: Set<number>;
  behavioral: boolean;
}

function unknownKeys(filter: Json, allowed: ReadonlySet<string>, kind: string): void {
  const extra = Object.keys(filter).filter((key) => !allowed.has(key));
  if (extra.length > 0)
    throw new CohortDefinitionError(`Unknown key(s) for ${kind} filter: ${extra.sort().join(', ')}`);
}

function missing(filter: Json, required: readonly string[], kind: string): void {
  const absent = required.filter((key) => filter[key] === undefined || filter[key] === null);
  if (absent.length > 0)
    throw new CohortDefinitionError(`Missing required keys for ${kind} filter: ${absent.join(', ')}`);
}

function checkNegation(filter: Json): void {
  if (filter.negation !== undefined && typeof filter.negation !== 'boolean')
    throw new CohortDefinitionError('negation must be a boolean.');
}

function checkPerson(filter: Json): void {
  unknownKeys(filter, personKeys, 'person');
  missing(filter, ['key'], 'person');
  if (typeof filter.key !== 'string' || filter.key === '' || filter.key.length > 400)
    throw new CohortDefinitionError(
      'A person filter key must be a non-empty string of at most 400 characters.',
    );
  const operator = filter.operator ?? 'exact';
  if (typeof operator !== 'string' || !personOperators.has(operator))
    throw new CohortDefinitionError(`Unknown operator for person filter: ${JSON.stringify(filter.operator)}`);
  if (operator !== 'is_set' && operator !== 'is_not_set') missing(filter, ['value'], 'person');
  checkNegation(filter);
}

function checkCohort(filter: Json, walk: Walk): void {
  unknownKeys(filter, cohortKeys, 'cohort');
  missing(filter, ['value'], 'cohort');
  const id = cohortIdOf(filter.value);
  if (filter.key !== 'id' || id === undefined)
    throw new CohortDefinitionError('Invalid Cohort ID in filter', null);
  checkNegation(filter);
  walk.cohortIds.add(id);
}

function checkWindow(filter: Json): void {
  const hasRelative = filter.time_value !== undefined && filter.time_value !== null;
  if (hasRelative) {
    const value = filter.time_value;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 10_000)
      throw new CohortDefinitionError('time_value must be a whole number from 1 to 10000.');
    if (!timeIntervals.includes(filter.time_interval as TimeInterval))
      throw new CohortDefinitionError(`time_interval must be one of ${timeIntervals.join(', ')}.`);
    return;
  }
  if (typeof filter.explicit_datetime === 'string') {
    if (parseExplicitDatetime(filter.explicit_datetime, new Date()) === undefined)
      throw new CohortDefinitionError(
        `explicit_datetime must be an ISO date or a relative date such as "-30d": ${JSON.stringify(filter.explicit_datetime).slice(0, 100)}`,
      );
    return;
  }
  throw new CohortDefinitionError(
    'Missing required keys for behavioral filter: time_value and time_interval, or explicit_datetime',
  );
}

function checkBehavioral(filter: Json, walk: Walk): void {
  unknownKeys(filter, behavioralKeys, 'behavioral');
  missing(filter, ['key', 'value', 'event_type'], 'behavioral');
  const value = String(filter.value);
  if (analyticalBehaviors.includes(value))
    throw new CohortDefinitionError(
      `Behavioral filter "${value}" is not supported by Flock; supported: ${supportedBehaviors.join(', ')}.`,
    );
  if (!(supportedBehaviors as readonly string[]).includes(value))
    throw new CohortDefinitionError(
      `Unknown behavioral filter value: ${JSON.stringify(filter.value).slice(0, 100)}`,
    );
  if (filter.event_type === 'actions')
    throw new CohortDefinitionError(
      'Behavioral filters on actions are not supported by Flock: use event_type "events".',
    );
  if (filter.event_type !== 'events')
    throw new CohortDefinitionError('event_type must be "events" or "actions".');
  if (typeof filter.key !== 'string' || filter.key === '' || filter.key.length > 400)
    throw new CohortDefinitionError(
      'A behavioral filter key must be an event name of at most 400 characters.',
    );
  if (Array.isArray(filter.event_filters) && filter.event_filters.length > 0)
    throw new CohortDefinitionError('event_filters on behavioral filters are not supported by Flock.');
  checkWindow(filter);
  if (value === 'performed_event_multiple') {
    missing(filter, ['operator_value'], 'behavioral');
    const count = filter.operator_value;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0)
      throw new CohortDefinitionError('operator_value must be a whole number.');
    const operator = filter.operator ?? 'eq';
    if (typeof operator !== 'string' || !(countOperators as readonly string[]).includes(operator))
      throw new CohortDefinitionError('count_operator must be gte, lte, eq, or None');
  }
  checkNegation(filter);
  walk.behavioral = true;
}

function checkNode(node: unknown, depth: number, walk: Walk): void {
  if (!isObject(node))
    throw new CohortDefinitionError('Each value of a property group must be a group or a filter.');
  if (isGroupNode(node)) {
    if (depth >= cohortDefinitionLimits.depth)
      throw new CohortDefinitionError(`Property groups nest at most ${cohortDefinitionLimits.depth} deep.`);
    const extra = Object.keys(node).filter((key) => key !== 'type' && key !== 'values');
    if (extra.length > 0)
      throw new CohortDefinitionError(`Unknown key(s) for property group: ${extra.sort().join(', ')}`);
    if (node.type !== 'AND' && node.type !== 'OR')
      throw new CohortDefinitionError('A property group type must be "AND" or "OR".');
    if (!Array.isArray(node.values))
      throw new CohortDefinitionError('A property group needs a list of values.');
    for (const value of node.values) checkNode(value, depth + 1, walk);
    return;
  }
  if (++walk.leaves > cohortDefinitionLimits.leaves)
    throw new CohortDefinitionError(`A cohort holds at most ${cohortDefinitionLimits.leaves} filters.`);
  switch (node.type) {
    case 'person':
      return checkPerson(node);
    case 'cohort':
      return checkCohort(node, walk);
    case 'behavioral':
      return checkBehavioral(node, walk);
    default:
      throw new CohortDefinitionError(
        `Unknown filter type: ${JSON.stringify(node.type ?? null).slice(0, 100)}`,
      );
  }
}

/** What a valid definition refers to. */
export interface DefinitionFacts {
  /** Cohorts its `cohort` filters name, directly. */
  readonly cohortIds: ReadonlySet<number>;
  /** It has a behavioural filter of its own (nested cohorts not included). */
  readonly behavioral: boolean;
}

function checkSize(value: unknown, attr: 'filters' | 'groups'): void {
  if (Buffer.byteLength(JSON.stringify(value)) > cohortDefinitionLimits.bytes)
    throw new CohortDefinitionError(
      `A cohort definition is at most ${cohortDefinitionLimits.bytes / 1024} KB of JSON.`,
      attr,
    );
}

/** Validates `filters`; returns what it refers to. */
export function validateFilters(raw: unknown): DefinitionFacts {
  checkSize(raw, 'filters');
  if (!isObject(raw) || !('properties' in raw))
    throw new CohortDefinitionError("Filters must be a dictionary with a 'properties' key.");
  const extra = Object.keys(raw).filter((key) => key !== 'properties');
  if (extra.length > 0)
    throw new CohortDefinitionError(`Unknown key(s) in filters: ${extra.sort().join(', ')}`);
  const walk: Walk = { leaves: 0, cohortIds: new Set(), behavioral: false };
  const { properties } = raw;
  // `{}` is PostHog's empty cohort.
  if (isObject(properties) && Object.keys(properties).length === 0) return walk;
  if (!isObject(properties) || !isGroupNode(properties))
    throw new CohortDefinitionError("Filters must be a dictionary with a 'properties' key.");
  checkNode(properties, 0, walk);
  return walk;
}

// ---- legacy groups -------------------------------------------------------------------------------

const legacyGroupKeys = [
  'properties',
  'action_id',
  'event_id',
  'days',
  'count',
  'count_operator',
  'start_date',
  'end_date',
  'label',
] as const;

type LegacyGroup = Record<(typeof legacyGroupKeys)[number], unknown>;

/** Legacy property lists: a list of filters, or the very old `{"email": "x"}` dict. */
function legacyProperties(properties: unknown): Json[] {
  if (Array.isArray(properties)) return properties.filter(isObject);
  if (isObject(properties))
    return Object.entries(properties).map(([key, value]) => ({ key, value, type: 'person' }));
  return [];
}

/** A group's `properties`: absent, a list of filter objects or the old `{key: value}` dict (PostHog's 400 otherwise). */
function checkLegacyProperties(properties: unknown): void {
  if (properties === null || isObject(properties)) return;
  if (!Array.isArray(properties) || !properties.every(isObject))
    throw new CohortDefinitionError(
      'The properties of a group must be a list of property filters (objects).',
      'groups',
    );
}

/** Validates `groups` and returns them as PostHog stores them on create (every key, unset ones null). */
export function validateGroups(raw: unknown): { groups: LegacyGroup[]; facts: DefinitionFacts } {
  checkSize(raw, 'groups');
  if (!Array.isArray(raw)) throw new CohortDefinitionError('groups must be a list of groups.', 'groups');
  const normalized = raw.map((group): LegacyGroup => {
    if (!isObject(group)) throw new CohortDefinitionError('Each group must be an object.', 'groups');
    const extra = Object.keys(group).filter((key) => !(legacyGroupKeys as readonly string[]).includes(key));
    if (extra.length > 0)
      throw new CohortDefinitionError(`Unknown key(s) in group: ${extra.sort().join(', ')}`, 'groups');
    const full = Object.fromEntries(legacyGroupKeys.map((key) => [key, group[key] ?? null])) as LegacyGroup;
    if (full.properties === null && full.action_id === null && full.event_id === null)
      throw new CohortDefinitionError('Cohort group needs properties or action_id or event_id', 'groups');
    checkLegacyProperties(full.properties);
    if (full.action_id !== null)
      throw new CohortDefinitionError(
        'Cohort groups on actions are not supported by Flock: use event_id.',
        'groups',
      );
    return full;
  });
  // The converted tree goes through the same checks as `filters`, errors reported on `groups`.
  try {
    return { groups: normalized, facts: validateFilters(filtersOfGroups(normalized)) };
  } catch (error) {
    if (error instanceof CohortDefinitionError)
      throw new CohortDefinitionError(error.message, 'groups', error.code);
    throw error;
  }
}

const countOperatorOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** PostHog's `Cohort.properties` for legacy groups: an OR of one AND per group. */
export function filtersOfGroups(groups: readonly unknown[]): CohortFilters {
  const values = groups.filter(isObject).map((group): PropertyGroup => {
    if (group.properties !== null && group.properties !== undefined) {
      const filters = legacyProperties(group.properties).map((filter) => ({
        ...filter,
        type: filter.type === undefined || filter.type === 'event' ? 'person' : filter.type,
      }));
      return { type: 'AND', values: filters as unknown as PropertyFilter[] };
    }
    const count = typeof group.count === 'number' ? group.count : 0;
    const behavioral: Json = {
      key: group.event_id,
      type: 'behavioral',
      value: count > 0 ? 'performed_event_multiple' : 'performed_event',
      event_type: 'events',
      time_interval: 'day',
      time_value: typeof group.days === 'number' && group.days > 0 ? group.days : 365,
      ...(count > 0 ? { operator: countOperatorOf(group.count_operator), operator_value: count } : {}),
    };
    return { type: 'AND', values: [behavioral as unknown as PropertyFilter] };
  });
  return { properties: values.length === 0 ? {} : { type: 'OR', values } };
}

/** The definition a cohort is evaluated by: its `filters`, else its converted `groups`. */
export function definitionOf(cohort: {
  readonly filters: unknown;
  readonly groups: readonly unknown[];
}): CohortFilters {
  if (isObject(cohort.filters) && 'properties' in cohort.filters)
    return cohort.filters as unknown as CohortFilters;
  return filtersOfGroups(cohort.groups);
}

/** The property tree, or undefined for the empty cohort. */
export function treeOf(filters: CohortFilters): PropertyGroup | undefined {
  return Object.keys(filters.properties).length === 0 ? undefined : (filters.properties as PropertyGroup);
}

/** How many groups and filters a tree holds (one step each when it is matched). */
export function nodeCount(group: PropertyGroup | undefined): number {
  if (!group) return 0;
  let count = 0;
  const stack: unknown[] = [group];
  while (stack.length > 0) {
    const node = stack.pop();
    count++;
    if (isObject(node) && isGroupNode(node) && Array.isArray(node.values))
      stack.push(...(node.values as unknown[]));
  }
  return count;
}

/** Every leaf of a tree, depth first. */
export function leavesOf(group: PropertyGroup | undefined): PropertyFilter[] {
  if (!group) return [];
  return (group.values ?? []).flatMap((value) =>
    isObject(value) && isGroupNode(value as Json)
      ? leavesOf(value as PropertyGroup)
      : [value as PropertyFilter],
  );
}

// ---- behavioural windows -------------------------------------------------------------------------

const unitMs: Record<string, number> = {
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  m: 30 * 86_400_000,
  y: 365 * 86_400_000,
};

/** `-30d`, `-2w`, `-6m`, `-1y`, `-12h` relative to now, or an ISO date; undefined if neither. */
export function parseExplicitDatetime(text: string, now: Date): Date | undefined {
  const relative = /^-(\d{1,5})([hdwmy])$/.exec(text.trim());
  if (relative) return new Date(now.getTime() - Number(relative[1]) * unitMs[relative[2]!]!);
  if (text.length > 40 || !/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined;
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? undefined : new Date(parsed);
}
