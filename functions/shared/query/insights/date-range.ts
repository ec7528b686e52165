import type { DuckDBConnection } from '@duckdb/node-api';
import { ValidationError } from '../../http/errors';
import { utcTimestampColumn } from '../hogql/events-table';
import { identifier, stringLiteral } from '../hogql/sql';
import { insightBounds, type DateRange } from './schema';

/**
 * PostHog's date range resolution (posthog/hogql_queries/utils/query_date_range.py), in the project's
 * timezone: DuckDB's session timezone is the project's, so truncation to a day, week or month and
 * calendar arithmetic (`- INTERVAL 1 MONTH`, across daylight-saving changes) are local. Instants are
 * microseconds since the epoch (UTC) on the JS side and TIMESTAMPTZ in SQL.
 */

export type Interval = 'hour' | 'day' | 'week' | 'month';

export interface ResolvedRange {
  /** The first instant counted: the start of `from`'s bucket. */
  readonly from: bigint;
  /** The last instant counted (inclusive). */
  readonly to: bigint;
}

/** A bucket: its start (UTC micros) and its local wall time `YYYY-MM-DD HH:MM:SS`. */
export interface Bucket {
  readonly start: bigint;
  readonly local: string;
}

/** An instant as a TIMESTAMPTZ SQL expression. */
export function instantSql(micros: bigint): string {
  return `(make_timestamp(${micros}::BIGINT) AT TIME ZONE 'UTC')`;
}

/**
 * Whether an event of the relation is in the range, on its raw UTC timestamp: a filter DuckDB pushes
 * into the Parquet scan (the TIMESTAMPTZ `timestamp` would keep it above the scan).
 */
export function utcRangeSql(range: ResolvedRange): string {
  const column = identifier(utcTimestampColumn);
  return `${column} >= make_timestamp(${range.from}::BIGINT) AND ${column} <= make_timestamp(${range.to}::BIGINT)`;
}

/** The start of `expr`'s bucket; weeks start on Sunday, PostHog's default `week_start_day`. */
export function bucketStartSql(expr: string, interval: Interval): string {
  return interval === 'week'
    ? `(date_trunc('week', ${expr} + INTERVAL 1 DAY) - INTERVAL 1 DAY)`
    : `date_trunc('${interval}', ${expr})`;
}

const relativeUnits: Readonly<Record<string, string>> = {
  s: 'INTERVAL 1 SECOND',
  M: 'INTERVAL 1 MINUTE',
  h: 'INTERVAL 1 HOUR',
  d: 'INTERVAL 1 DAY',
  w: 'INTERVAL 7 DAY',
  m: 'INTERVAL 1 MONTH',
  q: 'INTERVAL 3 MONTH',
  y: 'INTERVAL 1 YEAR',
};
const truncUnits: Readonly<Record<string, string>> = {
  h: 'hour',
  d: 'day',
  m: 'month',
  q: 'quarter',
  y: 'year',
};

const relative = /^-?(\d{1,6})([sMhdwmqy])$/;
const startOrEnd = /^(?:-(\d{1,6}))?([hdwmqy])(Start|End)$/;
const absolute =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

interface Parsed {
  readonly sql: string;
  /** Whether the value is precise to the hour (then truncated to the hour, else to the day). */
  readonly hourly: boolean;
}

/** A `date_from`/`date_to` string as a TIMESTAMPTZ expression relative to `now`, or a 400. */
function parseDate(value: string, now: string, attr: string): Parsed {
  const rel = relative.exec(value);
  if (rel) {
    const [, amount, unit] = rel;
    return { sql: `(${now} - ${Number(amount)} * ${relativeUnits[unit!]})`, hourly: 'sMh'.includes(unit!) };
  }
  const edge = startOrEnd.exec(value);
  if (edge) {
    const [, amount, unit, side] = edge;
    const shifted = `(${now} - ${Number(amount ?? 0)} * ${relativeUnits[unit!]})`;
    const start =
      unit === 'w' ? bucketStartSql(shifted, 'week') : `date_trunc('${truncUnits[unit!]}', ${shifted})`;
    const sql = side === 'Start' ? start : `(${start} + ${relativeUnits[unit!]} - INTERVAL 1 MICROSECOND)`;
    return { sql, hourly: unit === 'h' };
  }
  if (absolute.test(value))
    return { sql: `TRY_CAST(${stringLiteral(value)} AS TIMESTAMPTZ)`, hourly: value.length > 10 };
  throw new ValidationError('invalid_input', `Unrecognised date: ${value}`, attr);
}

/**
 * The range of `dateRange` at `now` (PostHog's rules): `date_from` defaults to 7 days before today and
 * is truncated to its day (its hour for hour-precise values), `all` is the first of `firstEvent`;
 * `date_to` defaults to now and is extended to the end of its day (its hour for hourly intervals)
 * unless `explicitDate`. `from` is then aligned to the start of its bucket.
 */
export async function resolveDateRange(
  connection: DuckDBConnection,
  dateRange: DateRange,
  interval: Interval,
  now: Date,
  firstEventSql: string,
): Promise<ResolvedRange> {
  const nowSql = instantSql(BigInt(now.getTime()) * 1000n);
  const explicit = dateRange?.explicitDate === true;
  const fromText = dateRange?.date_from ?? '-7d';
  let fromSql: string;
  if (fromText === 'all') fromSql = `coalesce((${firstEventSql}), date_trunc('day', ${nowSql}))`;
  else {
    const from = parseDate(fromText, nowSql, 'dateRange__date_from');
    fromSql = explicit ? from.sql : `date_trunc('${from.hourly ? 'hour' : 'day'}', ${from.sql})`;
  }
  const to = dateRange?.date_to ? parseDate(dateRange.date_to, nowSql, 'dateRange__date_to').sql : nowSql;
  const unit = interval === 'hour' ? 'hour' : 'day';
  const toSql = explicit
    ? to
    : `(date_trunc('${unit}', ${to}) + INTERVAL 1 ${unit} - INTERVAL 1 MICROSECOND)`;
  const reader = await connection.runAndReadAll(
    `SELECT epoch_us(${bucketStartSql(fromSql, interval)}), epoch_us(${toSql})`,
  );
  const [from, end] = reader.getRows()[0]!;
  if (from === null)
    throw new ValidationError('invalid_input', `Invalid date: ${fromText}`, 'dateRange__date_from');
  if (end === null)
    throw new ValidationError('invalid_input', `Invalid date: ${dateRange?.date_to}`, 'dateRange__date_to');
  if ((end as bigint) < (from as bigint))
    throw new ValidationError('invalid_input', 'date_to is before date_from', 'dateRange');
  const range = { from: from as bigint, to: end as bigint };
  const bucketMicros =
    { hour: 3_600n, day: 86_400n, week: 604_800n, month: 2_419_200n }[interval] * 1_000_000n;
  if ((range.to - range.from) / bucketMicros >= insightBounds.buckets)
    throw new ValidationError(
      'invalid_input',
      `The date range holds more than ${insightBounds.buckets} ${interval} intervals`,
      'dateRange',
    );
  return range;
}

/** The range moved back by `shift` (an INTERVAL expression), for `compareFilter`. */
export async function shiftRange(
  connection: DuckDBConnection,
  range: ResolvedRange,
  shift: string,
): Promise<ResolvedRange> {
  const reader = await connection.runAndReadAll(
    `SELECT epoch_us(${instantSql(range.from)} - ${shift}), epoch_us(${instantSql(range.to)} - ${shift})`,
  );
  const [from, to] = reader.getRows()[0]!;
  return { from: from as bigint, to: to as bigint };
}

/** The INTERVAL of a `compare_to` value (`-1w`, `-14d`…), or a 400. */
export function compareShift(value: string): string {
  const rel = relative.exec(value);
  if (!rel)
    throw new ValidationError(
      'invalid_input',
      `Unrecognised compare_to: ${value}`,
      'compareFilter__compare_to',
    );
  return `(${Number(rel[1])} * ${relativeUnits[rel[2]!]})`;
}

/** The start of every bucket of the range as rows of one TIMESTAMPTZ column, `b`. */
export function bucketStartsSql(range: ResolvedRange, interval: Interval): string {
  const step = interval === 'week' ? 'INTERVAL 7 DAY' : `INTERVAL 1 ${interval}`;
  return `SELECT unnest(generate_series(${instantSql(range.from)}, ${instantSql(range.to)}, ${step})) AS b`;
}

/**
 * The range's UTC offset (micros) when it is the same all through the range, else null (a
 * daylight-saving change within it): checked at every UTC day of the range and at its end.
 */
export async function fixedOffsetOf(
  connection: DuckDBConnection,
  range: ResolvedRange,
): Promise<bigint | null> {
  const from = instantSql(range.from);
  const to = instantSql(range.to);
  const reader = await connection.runAndReadAll(
    `SELECT min(o), max(o) FROM (SELECT epoch_us(b::TIMESTAMP) - epoch_us(b) AS o FROM ` +
      `(SELECT unnest(generate_series(${from}, ${to}, INTERVAL 1 DAY)) AS b UNION ALL SELECT ${to}))`,
  );
  const [min, max] = reader.getRows()[0]!;
  return min === max ? (min as bigint) : null;
}

/** Every bucket of the range, empty ones included (PostHog's zero-filled series). */
export async function bucketsOf(
  connection: DuckDBConnection,
  range: ResolvedRange,
  interval: Interval,
): Promise<Bucket[]> {
  const reader = await connection.runAndReadAll(
    `SELECT epoch_us(b), strftime(b::TIMESTAMP, '%Y-%m-%d %H:%M:%S') FROM (${bucketStartsSql(range, interval)}) ORDER BY 1`,
  );
  return reader.getRows().map(([start, local]) => ({ start: start as bigint, local: local as string }));
}
