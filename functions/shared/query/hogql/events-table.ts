import { propertiesSql } from '../../lake/properties';
import { lakeColumns, lakeGroupColumns } from '../../lake/schema';
import { identifier, jsonPath, stringLiteral } from './sql';

/**
 * HogQL's `events` table over the lake's rows (functions/shared/lake/schema.ts): PostHog's column names
 * (posthog/hogql/database/schema/events.py), each read from its lake column. The caller provides a
 * relation named `events` over the project's Parquet files (Hive partitions, so `project_id` is a
 * column); the compiler always reads it through `eventsRelation`, which keeps the project's rows only.
 */

/** HogQL column → lake column. Timestamps are TIMESTAMPTZ so that they read in the project's timezone. */
const columns: Readonly<Record<string, string>> = {
  uuid: 'uuid',
  event: 'event',
  properties: 'properties',
  timestamp: 'timestamp',
  distinct_id: 'distinct_id',
  elements_chain: 'elements_chain',
  created_at: 'created_at',
  person_id: 'person_id',
  $session_id: 'session_id',
  $window_id: 'window_id',
  ...Object.fromEntries(
    Array.from({ length: lakeGroupColumns }, (_, index) => [`$group_${index}`, `group_${index}`]),
  ),
};

const timestampColumns = new Set(
  lakeColumns.filter((column) => column.type === 'timestamp').map((c) => c.name),
);

const matColumns = lakeColumns.flatMap((column) =>
  column.property !== undefined && column.name.startsWith('mat_')
    ? [[column.property, column.name] as const]
    : [],
);

/**
 * The relation's columns holding a property, by property name (`$browser` → `mat_browser`,
 * `$session_id` → `$session_id`): a property read alone is read from its column, never from the JSON
 * (which leaves out what a column holds exactly: functions/shared/lake/properties.ts).
 */
export const materialisedColumns: ReadonlyMap<string, string> = new Map([
  ...matColumns,
  ['$session_id', '$session_id'],
  ['$window_id', '$window_id'],
]);

/**
 * The hidden column of the relation holding the stored `properties` JSON, for reading one property
 * that has no column of its own (such a property is always in the JSON): cheaper than parsing the
 * restored `properties` whole.
 */
export const storedPropertiesColumn = '__properties_stored';

/** The hidden column of the relation holding the person's properties (JSON text). */
export const personPropertiesColumn = '__person_properties';

/**
 * The hidden column of the relation holding the lake's raw `timestamp` (TIMESTAMP, UTC). Insights
 * filter and bucket on it: a comparison with a constant reaches the Parquet scan (row groups pruned
 * on their `timestamp` statistics), which the TIMESTAMPTZ conversion of `timestamp` prevents.
 */
export const utcTimestampColumn = '__timestamp_utc';

/** What `SELECT *` from events returns, in PostHog's order. */
export const eventsStarColumns = [
  'uuid',
  'event',
  'properties',
  'timestamp',
  'distinct_id',
  'elements_chain',
  'created_at',
  '$session_id',
  '$window_id',
  'person_id',
] as const;

export function isEventsColumn(name: string): boolean {
  return Object.hasOwn(columns, name);
}

const uuidColumns = new Set(lakeColumns.filter((column) => column.type === 'uuid').map((c) => c.name));

/**
 * A lake column read as the relation exposes it: timestamps in UTC, UUIDs as their text, `properties`
 * whole again, `$session_id` and `$window_id` from the JSON when their column does not hold them.
 */
function read(lakeColumn: string): string {
  const column = identifier(lakeColumn);
  if (timestampColumns.has(lakeColumn)) return `(${column} AT TIME ZONE 'UTC')`;
  if (lakeColumn === 'properties') return propertiesSql(identifier);
  const property = lakeColumns.find((c) => c.name === lakeColumn)?.property;
  const text = uuidColumns.has(lakeColumn) ? `CAST(${column} AS VARCHAR)` : column;
  return property === undefined
    ? text
    : `coalesce(${text}, json_extract_string(${identifier('properties')}, ${stringLiteral(jsonPath([property]))}))`;
}

/**
 * The project's rows of `events`, with HogQL's column names: the only way the compiled SQL reads
 * the table. `projectId` is a safe integer (checked by the compiler).
 */
export function eventsRelation(projectId: number): string {
  const select = [
    ...Object.entries(columns).map(([name, lakeColumn]) => `${read(lakeColumn)} AS ${identifier(name)}`),
    `${identifier('person_properties')} AS ${identifier(personPropertiesColumn)}`,
    `${identifier('properties')} AS ${identifier(storedPropertiesColumn)}`,
    `${identifier('timestamp')} AS ${identifier(utcTimestampColumn)}`,
    ...matColumns.map(([, name]) => identifier(name)),
  ];
  return `(SELECT ${select.join(', ')} FROM events WHERE project_id = ${projectId})`;
}
