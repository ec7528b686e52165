import type { DuckDBConnection } from '@duckdb/node-api';
import { utcTimestampColumn } from '../hogql/events-table';
import { identifier, stringLiteral } from '../hogql/sql';
import { actorSql, breakdownNull, breakdownOther } from './context';
import {
  type Interval,
  type ResolvedRange,
  bucketStartSql,
  bucketStartsSql,
  instantSql,
  utcRangeSql,
} from './date-range';
import { propertyExpression } from './property-filters';
import type { EventsNode, SeriesMath } from './schema';

/**
 * One trends series over one period as SQL (PostHog's trends/aggregation_operations.py): a value per
 * (bucket, breakdown value). Active-user maths count the distinct actors of the 7 (30) days ending
 * with each bucket; every other math aggregates the bucket's own events.
 */

export interface SeriesQuery {
  readonly relation: string;
  /** Whether an event belongs to the series (its event and every property filter). */
  readonly where: string;
  readonly node: EventsNode;
  readonly math: SeriesMath;
  readonly interval: Interval;
  readonly range: ResolvedRange;
  /** The range's UTC offset (micros) when it has one all through, else null. */
  readonly offset: bigint | null;
  /** The breakdown property's text, or null. */
  readonly breakdown: string | null;
  /** The breakdown values kept (the rest are "other"), or null to keep every value. */
  readonly kept: readonly string[] | null;
}

/** Values per breakdown value (`''` without a breakdown), per bucket start (UTC micros). */
export type SeriesValues = Map<string, Map<bigint, number>>;

const quantiles: Readonly<Record<string, number>> = {
  median: 0.5,
  p75: 0.75,
  p90: 0.9,
  p95: 0.95,
  p99: 0.99,
};

/** The math's aggregate over a bucket's events (not the active-user windows). */
function aggregateSql(node: EventsNode, math: SeriesMath): string {
  if (math === 'total') return 'count(*)';
  if (math === 'dau') return `count(DISTINCT ${actorSql})`;
  if (math === 'unique_session') return `count(DISTINCT nullif("$session_id", ''))`;
  const source = node.math_property_type === 'person_properties' ? 'person' : 'event';
  const value = `TRY_CAST(${propertyExpression(source, node.math_property!)} AS DOUBLE)`;
  const quantile = quantiles[math];
  const aggregate = quantile === undefined ? `${math}(${value})` : `quantile_cont(${value}, ${quantile})`;
  return `coalesce(${aggregate}, 0)`;
}

/** The breakdown value of a row: null and '' are PostHog's null sentinel; values not kept, "other". */
function breakdownSql(query: SeriesQuery): string {
  if (query.breakdown === null) return "''";
  const value = `coalesce(nullif(${query.breakdown}, ''), ${stringLiteral(breakdownNull)})`;
  if (query.kept === null) return value;
  if (query.kept.length === 0) return stringLiteral(breakdownOther);
  return `CASE WHEN ${value} IN (${query.kept.map(stringLiteral).join(', ')}) THEN ${value} ELSE ${stringLiteral(breakdownOther)} END`;
}

/**
 * The breakdown value to group rows by, and the value it stands for once grouped: with every value
 * kept, rows group by the value with '' as null, and null becomes the sentinel on the groups only
 * (not on every row).
 */
function breakdownGroupSql(query: SeriesQuery): {
  readonly row: string;
  readonly group: (column: string) => string;
} {
  if (query.breakdown === null || query.kept !== null)
    return { row: breakdownSql(query), group: (column) => column };
  return {
    row: `nullif(${query.breakdown}, '')`,
    group: (column) => `coalesce(${column}, ${stringLiteral(breakdownNull)})`,
  };
}

/**
 * The maths over each bucket's own events, the range compared on the raw UTC timestamp (so it reaches
 * the Parquet scan), with no timezone conversion per row. With one UTC offset all through the range,
 * an event's bucket is truncated from its UTC time moved by the offset (not moved when it is UTC);
 * across a daylight-saving change it is the last bucket start at or before the event (an ASOF join
 * with the period's bucket starts, computed in the project's timezone, as UTC instants). Rows group
 * by the truncated time; the bucket's start in micros is computed on the groups.
 */
function bucketedSql(query: SeriesQuery): string {
  const utc = identifier(utcTimestampColumn);
  const breakdown = breakdownGroupSql(query);
  const select = `${breakdown.row} AS breakdown, ${aggregateSql(query.node, query.math)} AS value FROM ${query.relation} AS events`;
  const where = `WHERE ${utcRangeSql(query.range)} AND ${query.where} GROUP BY 1, 2`;
  let grouped: string;
  let start: string;
  if (query.offset !== null) {
    const shift = query.offset === 0n ? '' : ` + INTERVAL (${query.offset}) MICROSECOND`;
    grouped = `SELECT ${bucketStartSql(`${utc}${shift}`, query.interval)} AS bucket, ${select} ${where}`;
    start = query.offset === 0n ? 'bucket' : `bucket - INTERVAL (${query.offset}) MICROSECOND`;
  } else {
    grouped =
      `WITH buckets AS (SELECT make_timestamp(epoch_us(b)) AS __bucket FROM (${bucketStartsSql(query.range, query.interval)})) ` +
      `SELECT buckets.__bucket AS bucket, ${select} ASOF JOIN buckets ON events.${utc} >= buckets.__bucket ${where}`;
    start = 'bucket';
  }
  return `SELECT epoch_us(${start}) AS bucket, ${breakdown.group('breakdown')} AS breakdown, value FROM (${grouped})`;
}

const lookbackDays: Partial<Record<SeriesMath, number>> = { weekly_active: 6, monthly_active: 29 };

function seriesSql(query: SeriesQuery): string {
  const lookback = lookbackDays[query.math];
  if (lookback === undefined) return bucketedSql(query);
  const breakdown = breakdownSql(query);
  const from = instantSql(query.range.from);
  const to = instantSql(query.range.to);
  const step = query.interval === 'week' ? 'INTERVAL 7 DAY' : `INTERVAL 1 ${query.interval}`;
  return (
    `WITH matching AS (SELECT "timestamp", ${actorSql} AS actor, ${breakdown} AS breakdown ` +
    `FROM ${query.relation} AS events WHERE "timestamp" >= ${from} - INTERVAL ${lookback} DAY ` +
    `AND "timestamp" <= ${to} AND ${query.where}), ` +
    `buckets AS (SELECT unnest(generate_series(${from}, ${to}, ${step})) AS bucket) ` +
    `SELECT epoch_us(buckets.bucket) AS bucket, matching.breakdown, count(DISTINCT matching.actor) AS value ` +
    `FROM buckets JOIN matching ON matching."timestamp" >= buckets.bucket - INTERVAL ${lookback} DAY ` +
    `AND matching."timestamp" < buckets.bucket + ${step} AND matching."timestamp" <= ${to} GROUP BY 1, 2`
  );
}

/** Runs one series: its values per breakdown value and bucket (buckets with no events are absent). */
export async function seriesValues(connection: DuckDBConnection, query: SeriesQuery): Promise<SeriesValues> {
  const reader = await connection.runAndReadAll(seriesSql(query));
  const values: SeriesValues = new Map();
  for (const [bucket, breakdown, value] of reader.getRows()) {
    const key = breakdown as string;
    let buckets = values.get(key);
    if (!buckets) values.set(key, (buckets = new Map<bigint, number>()));
    buckets.set(bucket as bigint, Number(value));
  }
  return values;
}
