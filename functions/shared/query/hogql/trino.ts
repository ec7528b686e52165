import type { OperandKind, SqlDialect } from './dialect';
import { plainCastTypes } from './dialect';
import { HogQLError } from './errors';
import { lakePropertyColumns } from '../../lake/schema';
import { eventsRelationColumns } from './events-table';
import type { FunctionCall, FunctionDef, FunctionTable } from './functions';
import {
  dateDiffUnit,
  duckDbFunctions,
  emitCall,
  jsonKeys,
  quantileLevel,
  weekStartsOnSunday,
} from './functions';
import { identifier, stringLiteral } from './sql';

/**
 * HogQL in Trino's SQL, as Athena engine 3 runs it over the lake's Glue table (lib/lake.ts): the same
 * compiler (./compile.ts) and allow-list, with what Trino spells differently. Athena's sessions are in
 * UTC and cannot change their timezone, so the project's timezone is written into the SQL: timestamps
 * are read as `timestamp with time zone` in it, and `now()`, `today()` and datetime constants are too.
 * Trino converts no string to a timestamp or a number implicitly, so a constant compared with a
 * DateTime becomes a timestamp literal (a 400 if it is not a date or datetime), and a property's text
 * compared with a number is cast. The table is always read through its partitions: `project_id` from
 * the caller (never from the query) and, when known, the UTC dates the query can touch, so partition
 * projection lists only those prefixes.
 */

export interface TrinoTarget {
  /** The Glue database of the lake's table. */
  readonly database: string;
  /** The lake's table in it. */
  readonly table: string;
  /** The project's IANA timezone. */
  readonly timezone: string;
  /** The UTC dates (`YYYY-MM-DD`, inclusive) whose partitions the query can touch; absent: every date. */
  readonly dates?: { readonly from: string; readonly to: string };
  /**
   * The only files to read (`s3://bucket/key`, Athena's `"$path"`): the lake's listing rule's, so a
   * partition compacted within its grace period is not read twice. Absent: every file.
   */
  readonly paths?: readonly string[];
}

/** A JSON path for Trino's json functions: `$["key"][0]`, each key quoted, `"` and `\` escaped. */
export function trinoJsonPath(keys: readonly (string | number)[]): string {
  return (
    '$' +
    keys
      .map((key) =>
        typeof key === 'number' ? `[${key}]` : `["${key.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"]`,
      )
      .join('')
  );
}

const jsonScalar = (json: string, keys: readonly (string | number)[]): string =>
  `json_extract_scalar(${json}, ${stringLiteral(trinoJsonPath(keys))})`;

/** `YYYY-MM-DD`, optionally a time (`T` or space), fractional seconds and a UTC offset or `Z`. */
const datetimeText =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

const interval =
  (unit: string, count = 1) =>
  (call: FunctionCall) =>
    `(CAST(${call.args[0]} AS BIGINT) * INTERVAL '${count}' ${unit})`;

const jsonTyped = (type: string | null) => (call: FunctionCall) => {
  const text = jsonScalar(call.args[0]!, jsonKeys(call));
  return type === null ? text : `TRY_CAST(${text} AS ${type})`;
};

function trinoFunctions(zone: string): FunctionTable {
  const inZone = (value: string): string => `(${value} AT TIME ZONE ${zone})`;
  const one = (emit: (call: FunctionCall) => string): FunctionDef => ({ min: 1, max: 1, emit });
  const overrides: Record<string, FunctionDef> = {
    // Trino has no exact median or quantile: its approximate percentile (as ClickHouse's are).
    median: one((call) => `approx_percentile(${call.args[0]}, 0.5)`),
    quantile: {
      min: 1,
      max: 1,
      params: 1,
      emit: (call) => `approx_percentile(${call.args[0]}, ${quantileLevel(call)})`,
    },
    toStartOfWeek: {
      min: 1,
      max: 2,
      // Trino's `week` starts on Monday.
      emit: (call) =>
        weekStartsOnSunday(call)
          ? `CAST(date_add('day', -1, date_trunc('week', date_add('day', 1, ${call.args[0]}))) AS DATE)`
          : `CAST(date_trunc('week', ${call.args[0]}) AS DATE)`,
    },
    toDateTime: one((call) => `with_timezone(TRY_CAST(${call.args[0]} AS TIMESTAMP(6)), ${zone})`),
    now: { min: 0, max: 0, emit: () => inZone('current_timestamp') },
    // PostHog's other spelling of now(): in the project's timezone too, never Trino's own `now()`.
    NOW: { min: 0, max: 0, emit: () => inZone('current_timestamp') },
    today: { min: 0, max: 0, emit: () => `CAST(${inZone('current_timestamp')} AS DATE)` },
    // ClickHouse counts the unit's boundaries crossed; Trino's date_diff counts whole units elapsed.
    dateDiff: {
      min: 3,
      max: 3,
      emit: (call) => {
        const unit = stringLiteral(dateDiffUnit(call));
        return `date_diff(${unit}, date_trunc(${unit}, ${call.args[1]}), date_trunc(${unit}, ${call.args[2]}))`;
      },
    },
    toIntervalSecond: one(interval('SECOND')),
    toIntervalMinute: one(interval('MINUTE')),
    toIntervalHour: one(interval('HOUR')),
    toIntervalDay: one(interval('DAY')),
    toIntervalWeek: one(interval('DAY', 7)),
    toIntervalMonth: one(interval('MONTH')),
    toIntervalYear: one(interval('YEAR')),
    JSONExtractString: { min: 2, max: 16, emit: jsonTyped(null) },
    JSONExtractInt: { min: 2, max: 16, emit: jsonTyped('BIGINT') },
    JSONExtractFloat: { min: 2, max: 16, emit: jsonTyped('DOUBLE') },
    JSONExtractBool: { min: 2, max: 16, emit: jsonTyped('BOOLEAN') },
    JSONExtractRaw: {
      min: 2,
      max: 16,
      emit: (call) =>
        `json_format(json_extract(${call.args[0]}, ${stringLiteral(trinoJsonPath(jsonKeys(call)))}))`,
    },
    ilike: { min: 2, max: 2, emit: (call) => `(lower(${call.args[0]}) LIKE lower(${call.args[1]}))` },
    // Trino's concat takes strings only; ClickHouse's converts its arguments.
    concat: {
      min: 1,
      max: 64,
      emit: (call) => `concat(${call.args.map((arg) => `CAST(${arg} AS VARCHAR)`).join(', ')})`,
    },
  };
  // The same allow-list as DuckDB's, each function's flags (aggregation, any case) kept.
  return Object.fromEntries(
    Object.entries(duckDbFunctions).map(([name, def]) => [
      name,
      Object.hasOwn(overrides, name) ? { ...def, ...overrides[name] } : def,
    ]),
  );
}

/** A datetime string constant as a timestamp with time zone: its own offset, else the project's zone. */
function datetimeLiteral(value: unknown, zone: string): string {
  const match = typeof value === 'string' ? datetimeText.exec(value) : null;
  if (match === null)
    throw new HogQLError(
      'hogql_invalid_arguments',
      `Cannot compare a DateTime with ${JSON.stringify(value)}: use YYYY-MM-DD or YYYY-MM-DD HH:MM:SS`,
    );
  const [, date, time, offset] = match;
  const text = `${date} ${time ?? '00:00:00'}`;
  return offset === undefined
    ? `with_timezone(TIMESTAMP ${stringLiteral(text)}, ${zone})`
    : `(from_iso8601_timestamp(${stringLiteral(`${date}T${time}${offset}`)}) AT TIME ZONE ${zone})`;
}

function dateLiteral(value: unknown): string {
  const match = typeof value === 'string' ? datetimeText.exec(value) : null;
  if (match === null || match[2] !== undefined)
    throw new HogQLError('hogql_invalid_arguments', `Cannot compare a Date with ${JSON.stringify(value)}`);
  return `DATE ${stringLiteral(match[1]!)}`;
}

/** A 16-byte UUID column (Glue's `binary`) as its canonical lower-case text. */
const uuidText = (column: string): string =>
  `lower(regexp_replace(to_hex(${column}), '^(.{8})(.{4})(.{4})(.{4})(.{12})$', '$1-$2-$3-$4-$5'))`;

/**
 * The event's whole properties in Trino, as functions/shared/lake/properties.ts restores them for
 * DuckDB: each property a column holds, where the stored JSON lacks it (on a key in both, the JSON's
 * value wins, as `map_concat` keeps the last map's).
 */
function trinoPropertiesSql(column: (name: string) => string): string {
  const keys = lakePropertyColumns.map((held) => stringLiteral(held.property));
  const values = lakePropertyColumns.map(
    (held) => `CAST(${held.type === 'uuid' ? uuidText(column(held.name)) : column(held.name)} AS JSON)`,
  );
  return (
    `json_format(CAST(map_concat(map_filter(MAP(ARRAY[${keys.join(', ')}], ARRAY[${values.join(', ')}]), ` +
    `(k, v) -> v IS NOT NULL), CAST(json_parse(${column('properties')}) AS MAP(VARCHAR, JSON))) AS JSON))`
  );
}

/** Trino (Athena engine 3) over the lake's Glue table. */
export function trinoDialect(target: TrinoTarget): SqlDialect {
  const zone = stringLiteral(target.timezone);
  const functions = trinoFunctions(zone);
  const table = `${identifier(target.database)}.${identifier(target.table)}`;
  return {
    name: 'trino',
    events: (projectId) => {
      const select = eventsRelationColumns({
        timestamp: (column) => `(with_timezone(${column}, 'UTC') AT TIME ZONE ${zone})`,
        uuid: uuidText,
        properties: trinoPropertiesSql,
        jsonString: jsonScalar,
      });
      const dates = target.dates
        ? ` AND "date" BETWEEN ${stringLiteral(target.dates.from)} AND ${stringLiteral(target.dates.to)}`
        : '';
      const files = target.paths
        ? ` AND ${target.paths.length === 0 ? 'FALSE' : `"$path" IN (${target.paths.map(stringLiteral).join(', ')})`}`
        : '';
      return `(SELECT ${select.join(', ')} FROM ${table} WHERE "project_id" = ${projectId}${dates}${files})`;
    },
    jsonString: jsonScalar,
    cast: (expr, type) => {
      if (type === 'datetime') return `with_timezone(TRY_CAST(${expr} AS TIMESTAMP(6)), ${zone})`;
      return Object.hasOwn(plainCastTypes, type) ? `TRY_CAST(${expr} AS ${plainCastTypes[type]})` : undefined;
    },
    ilike: (left, right, negated) => `(${negated ? 'NOT ' : ''}(lower(${left}) LIKE lower(${right})))`,
    operand: (sql: string, own: OperandKind, other: OperandKind, value?: unknown) => {
      if (own === 'string-constant' && other === 'datetime') return datetimeLiteral(value, zone);
      if (own === 'string-constant' && other === 'date') return dateLiteral(value);
      if (own === 'text' && other === 'number-constant') return `TRY_CAST(${sql} AS DOUBLE)`;
      return sql;
    },
    page: (limit, offset) =>
      `${offset === null ? '' : ` OFFSET ${offset}`}${limit === null ? '' : ` LIMIT ${limit}`}`,
    call: (call) => emitCall(call, functions),
  };
}
