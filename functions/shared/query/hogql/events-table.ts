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
 * A property's value as nullable text (PostHog's JSONExtractString), the one rule for reading a
 * property, the HogQL compiler's and the insights': an event property with a single key that has a
 * column reads it, any other the key path in the stored JSON text of the event's properties, or in
 * the person's. `jsonString` is the SQL dialect's read of a JSON text.
 */
export function propertySql(
  source: 'event' | 'person',
  keys: readonly string[],
  jsonString: (json: string, keys: readonly string[]) => string = duckDbJsonString,
): string {
  if (source === 'person') return jsonString(identifier(personPropertiesColumn), keys);
  const column = keys.length === 1 ? materialisedColumns.get(keys[0]!) : undefined;
  return column !== undefined ? identifier(column) : jsonString(identifier(storedPropertiesColumn), keys);
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

const uuidColumns = new Set(lakeColumns.filter((column) => column.type === 'uuid').map((c) => c.name));

/** How an engine reads the lake's columns into the relation's (each function gets a quoted column). */
export interface LakeColumnReads {
  /** A timestamp column (UTC in the lake) as a timestamp with time zone. */
  readonly timestamp: (column: string) => string;
  /** A UUID column as its canonical text. */
  readonly uuid: (column: string) => string;
  /** The event's whole properties (JSON text) from the row, given the SQL of each lake column. */
  readonly properties: (column: (name: string) => string) => string;
  /** The text at `keys` of a JSON text. */
  readonly jsonString: (json: string, keys: readonly string[]) => string;
}

/** DuckDB's reads (the query function's own engine). */
const duckDbReads: LakeColumnReads = {
  timestamp: (column) => `(${column} AT TIME ZONE 'UTC')`,
  uuid: (column) => `CAST(${column} AS VARCHAR)`,
  properties: propertiesSql,
  jsonString: duckDbJsonString,
};

/**
 * The relation's select list: each HogQL column from its lake column (timestamps in UTC, UUIDs as
 * their text, `properties` whole again, `$session_id` and `$window_id` from the JSON when their column
 * does not hold them), and the hidden columns.
 */
export function eventsRelationColumns(reads: LakeColumnReads): string[] {
  const read = (lakeColumn: string): string => {
    const column = identifier(lakeColumn);
    if (timestampColumns.has(lakeColumn)) return reads.timestamp(column);
    if (lakeColumn === 'properties') return reads.properties(identifier);
    const property = lakeColumns.find((c) => c.name === lakeColumn)?.property;
    const text = uuidColumns.has(lakeColumn) ? reads.uuid(column) : column;
    return property === undefined
      ? text
      : `coalesce(${text}, ${reads.jsonString(identifier('properties'), [property])})`;
  };
  return [
    ...Object.entries(columns).map(([name, lakeColumn]) => `${read(lakeColumn)} AS ${identifier(name)}`),
    `${identifier('person_properties')} AS ${identifier(personPropertiesColumn)}`,
    `${identifier('properties')} AS ${identifier(storedPropertiesColumn)}`,
    `${identifier('timestamp')} AS ${identifier(utcTimestampColumn)}`,
    ...matColumns.map(([, name]) => identifier(name)),
  ];
}

/**
 * The project's rows of `events`, with HogQL's column names: the only way the compiled SQL reads
 * the table. `projectId` is a safe integer (checked by the compiler).
 */
export function eventsRelation(projectId: number): string {
  return `(SELECT ${eventsRelationColumns(duckDbReads).join(', ')} FROM events WHERE project_id = ${projectId})`;
}
