/**
 * The events lake's schema: the one place its columns are named and typed. The lake writer builds
 * its Parquet files from it (functions/lake/parquet.ts) and the stack's Glue table is derived from it
 * (lib/lake.ts); a CDK test compares the two.
 *
 * One row per stored event, as the plugins left it. Column names are those of PostHog's ClickHouse
 * `events` table (posthog/models/event/sql.py) where Athena can spell them; Athena names hold only
 * lowercase letters, digits and underscores, so PostHog's `$session_id`, `$window_id` and `$group_0…4`
 * lose their `$`, and its materialised columns `mat_$browser` etc. are `mat_browser` etc.
 */

/**
 * Bumped whenever a column is added, removed or retyped; written in each file's metadata. Version 2:
 * `uuid`, `session_id` and `window_id` are UUIDs (16 bytes, not 36 characters of text), and a
 * property its column holds exactly is left out of `properties` (`propertiesSql` restores it).
 * Version 1 files (text UUIDs, every property in `properties`) read the same through `propertiesSql`
 * and the query's `events` relation: their JSON still holds every key, so nothing is restored.
 */
export const lakeSchemaVersion = 2;

/** The Parquet key-value metadata entry holding `lakeSchemaVersion`. */
export const schemaVersionKey = 'flock_lake_schema_version';

export type LakeColumnType = 'string' | 'timestamp' | 'uuid';

export interface LakeColumn {
  readonly name: string;
  readonly type: LakeColumnType;
  /**
   * The event property the column is read from (a materialised property), if any. When the column
   * holds the value exactly (a string; for a `uuid` column, a UUID in canonical form), the value is
   * left out of `properties`; otherwise it stays there (and a `uuid` column is null).
   */
  readonly property?: string;
}

/** The properties PostHog materialises as columns of its events table. */
const materialised = [
  '$current_url',
  '$browser',
  '$os',
  '$device_type',
  '$pathname',
  '$host',
  '$referring_domain',
] as const;

/** The number of group types a project may have (`$group_0…4`). */
export const lakeGroupColumns = 5;

export const lakeColumns: readonly LakeColumn[] = [
  { name: 'uuid', type: 'uuid' },
  { name: 'event', type: 'string' },
  { name: 'distinct_id', type: 'string' },
  { name: 'person_id', type: 'string' },
  /** When the event happened, UTC, microseconds. */
  { name: 'timestamp', type: 'timestamp' },
  /** When the lake writer wrote the row, UTC. */
  { name: 'inserted_at', type: 'timestamp' },
  /** When Flock received the event (PostHog's `created_at`), UTC. */
  { name: 'created_at', type: 'timestamp' },
  /** JSON text. */
  { name: 'properties', type: 'string' },
  /** JSON text: the person's properties as resolved at ingestion (PostHog's person-on-events mode). */
  { name: 'person_properties', type: 'string' },
  { name: 'elements_chain', type: 'string' },
  { name: 'session_id', type: 'uuid', property: '$session_id' },
  { name: 'window_id', type: 'uuid', property: '$window_id' },
  ...Array.from({ length: lakeGroupColumns }, (_, index) => ({
    name: `group_${index}`,
    type: 'string' as const,
  })),
  ...materialised.map((property) => ({
    name: `mat_${property.slice(1)}`,
    type: 'string' as const,
    property,
  })),
];

/** The partition columns of the layout (`events/project_id=<id>/date=<YYYY-MM-DD>/…`). */
export const lakePartitionColumns = [
  { name: 'project_id', type: 'int' },
  { name: 'date', type: 'string' },
] as const;

/** The columns holding an event property, each left out of `properties` when it holds it exactly. */
export const lakePropertyColumns: readonly (LakeColumn & { readonly property: string })[] =
  lakeColumns.flatMap((column) =>
    column.property === undefined ? [] : [{ ...column, property: column.property }],
  );

const duckDbTypes: Readonly<Record<LakeColumnType, string>> = {
  string: 'VARCHAR',
  timestamp: 'TIMESTAMP',
  uuid: 'UUID',
};

/**
 * Hive types of the Glue table. A DuckDB UUID is Parquet's UUID logical type over a 16-byte
 * FIXED_LEN_BYTE_ARRAY, which Hive and Athena read as `binary` (the text form is
 * `lower(to_hex(…))` with its dashes put back).
 */
const glueTypes: Readonly<Record<LakeColumnType, string>> = {
  string: 'string',
  timestamp: 'timestamp',
  uuid: 'binary',
};

/** The DuckDB type of a column, for the writer and for readers. */
export function duckDbType(type: LakeColumnType): string {
  return duckDbTypes[type];
}

/** The Glue (Hive) type of a column, for the stack's table. */
export function glueType(type: LakeColumnType): string {
  return glueTypes[type];
}
