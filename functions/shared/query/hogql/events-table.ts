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

/** The lake columns holding a materialised property, by property name (`$browser` → `mat_browser`). */
export const materialisedColumns: ReadonlyMap<string, string> = new Map(
  lakeColumns.flatMap((column) =>
    column.property !== undefined && column.name.startsWith('mat_') ? [[column.property, column.name]] : [],
  ),
);

/** The hidden column of the relation holding the person's properties (JSON text). */
export const personPropertiesColumn = '__person_properties';

/**
 * A property's value as nullable text (PostHog's JSONExtractString), the one rule for reading a
 * property, the HogQL compiler's and the insights': an event property with a single key that the lake
 * materialises reads its column, any other the key path in the JSON text of the event's or the
 * person's properties.
 */
export function propertySql(
  source: 'event' | 'person',
  keys: readonly string[],
  jsonString: (json: string, keys: readonly string[]) => string = duckDbJsonString,
): string {
  if (source === 'person') return jsonString(identifier(personPropertiesColumn), keys);
  const column = keys.length === 1 ? materialisedColumns.get(keys[0]!) : undefined;
  return column !== undefined ? identifier(column) : jsonString(identifier('properties'), keys);
}

/** DuckDB's read of the text at `keys` in a JSON text (the SQL dialects' `jsonString`). */
export const duckDbJsonString = (json: string, keys: readonly (string | number)[]): string =>
  `json_extract_string(${json}, ${stringLiteral(jsonPath(keys))})`;

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

/**
 * The relation's select list: each HogQL column from its lake column, a timestamp (UTC in the lake)
 * read by `readTimestamp` as the engine makes it a timestamp with time zone, and the hidden columns.
 */
export function eventsRelationColumns(readTimestamp: (column: string) => string): string[] {
  const read = (lakeColumn: string): string =>
    timestampColumns.has(lakeColumn) ? readTimestamp(identifier(lakeColumn)) : identifier(lakeColumn);
  return [
    ...Object.entries(columns).map(([name, lakeColumn]) => `${read(lakeColumn)} AS ${identifier(name)}`),
    `${identifier('person_properties')} AS ${identifier(personPropertiesColumn)}`,
    `${identifier('timestamp')} AS ${identifier(utcTimestampColumn)}`,
    ...[...materialisedColumns.values()].map((name) => identifier(name)),
  ];
}

/**
 * The project's rows of `events`, with HogQL's column names: the only way the compiled SQL reads
 * the table. `projectId` is a safe integer (checked by the compiler).
 */
export function eventsRelation(projectId: number): string {
  const select = eventsRelationColumns((column) => `(${column} AT TIME ZONE 'UTC')`);
  return `(SELECT ${select.join(', ')} FROM events WHERE project_id = ${projectId})`;
}
