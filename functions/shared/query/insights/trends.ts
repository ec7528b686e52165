import type { DuckDBConnection } from '@duckdb/node-api';
import { ValidationError } from '../../http/errors';
import { isoInTimezone } from '../values';
import {
  breakdownNull,
  breakdownOther,
  breakdownValueSql,
  type InsightContext,
  nodeSql,
  prepareConnection,
} from './context';
import {
  type Bucket,
  type Interval,
  type ResolvedRange,
  bucketsOf,
  compareShift,
  fixedOffsetOf,
  resolveDateRange,
  shiftRange,
} from './date-range';
import { bucketDay, bucketInstant, bucketLabel } from './labels';
import { propertiesSql } from './property-filters';
import {
  baseMaths,
  type EventsNode,
  type SeriesMath,
  type TrendsQuery,
  parseInsightQuery,
  trendsQuerySchema,
} from './schema';
import { type SeriesQuery, type SeriesValues, seriesValues } from './trends-series';

export type { InsightContext } from './context';

/**
 * PostHog's TrendsQuery (posthog/hogql_queries/insights/trends/trends_query_runner.py) over the lake:
 * one SQL query per series and period, buckets zero-filled in JS, PostHog's series objects out.
 */

const defaultBreakdownLimit = 25;

/** PostHog's convert_active_user_math_based_on_interval: a window no longer than the bucket is DAU. */
function effectiveMath(node: EventsNode, interval: Interval): SeriesMath {
  const math = node.math ?? 'total';
  if (math === 'weekly_active' && (interval === 'week' || interval === 'month')) return 'dau';
  if (math === 'monthly_active' && interval === 'month') return 'dau';
  return math;
}

function checkSeries(trends: TrendsQuery): void {
  trends.series.forEach((node, index) => {
    const propertyMath = node.math && !(baseMaths as readonly string[]).includes(node.math);
    if (propertyMath && !node.math_property)
      throw new ValidationError(
        'required',
        `math ${node.math} needs a math_property`,
        `series__${index}__math_property`,
      );
  });
  if (trends.breakdownFilter?.breakdown_type && !trends.breakdownFilter.breakdown)
    throw new ValidationError('required', 'breakdown_type needs a breakdown', 'breakdownFilter__breakdown');
}

/** The breakdown values kept: the `limit` largest by total value (ties by value), or all if fewer. */
function keptValues(values: SeriesValues, limit: number): string[] | null {
  if (values.size <= limit) return null;
  const totals = [...values].map(([value, buckets]) => ({
    value,
    total: [...buckets.values()].reduce((sum, item) => sum + item, 0),
  }));
  totals.sort((a, b) => b.total - a.total || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  return totals.slice(0, limit).map((item) => item.value);
}

interface Period {
  readonly range: ResolvedRange;
  readonly buckets: Bucket[];
  /** The range's UTC offset (micros) when it has one all through, else null. */
  readonly offset: bigint | null;
  readonly compare: 'current' | 'previous' | null;
}

async function periodsOf(
  connection: DuckDBConnection,
  trends: TrendsQuery,
  relation: string,
  interval: Interval,
  context: InsightContext,
): Promise<Period[]> {
  const any = trends.series.map((node, index) => nodeSql(node, `series__${index}`)).join(' OR ');
  const range = await resolveDateRange(
    connection,
    trends.dateRange,
    interval,
    context.now,
    `SELECT min("timestamp") FROM ${relation} AS events WHERE ${any}`,
  );
  const compare = trends.compareFilter?.compare === true;
  const current: Period = {
    range,
    buckets: await bucketsOf(connection, range, interval),
    offset: await fixedOffsetOf(connection, range),
    compare: compare ? 'current' : null,
  };
  if (!compare) return [current];
  const from = trends.dateRange?.date_from ?? '-7d';
  const shift = trends.compareFilter?.compare_to
    ? compareShift(trends.compareFilter.compare_to)
    : /^-\d+[sMhdwmqy]$/.test(from)
      ? compareShift(from)
      : `(${current.buckets.length} * ${interval === 'week' ? 'INTERVAL 7 DAY' : `INTERVAL 1 ${interval}`})`;
  const previous = await shiftRange(connection, range, shift);
  return [
    current,
    {
      range: previous,
      buckets: await bucketsOf(connection, previous, interval),
      offset: await fixedOffsetOf(connection, previous),
      compare: 'previous',
    },
  ];
}

export async function runTrends(
  connection: DuckDBConnection,
  query: unknown,
  context: InsightContext,
): Promise<Record<string, unknown>> {
  const trends = parseInsightQuery(trendsQuerySchema, query);
  checkSeries(trends);
  const relation = await prepareConnection(connection, context);
  const interval = trends.interval ?? 'day';
  const periods = await periodsOf(connection, trends, relation, interval, context);
  const breakdown = breakdownValueSql(trends.breakdownFilter);
  const limit = trends.breakdownFilter?.breakdown_limit ?? defaultBreakdownLimit;
  const global = propertiesSql(trends.properties, 'properties');
  const results: Record<string, unknown>[] = [];
  let hasMore = false;
  for (const period of periods) {
    for (const [order, node] of trends.series.entries()) {
      const base: SeriesQuery = {
        relation,
        where: `(${nodeSql(node, `series__${order}`)} AND ${global})`,
        node,
        math: effectiveMath(node, interval),
        interval,
        range: period.range,
        offset: period.offset,
        breakdown,
        kept: null,
      };
      let values = await seriesValues(connection, base);
      const kept = breakdown === null ? null : keptValues(values, limit);
      if (kept !== null) {
        values = await seriesValues(connection, { ...base, kept });
        if (trends.breakdownFilter?.breakdown_hide_other_aggregation) values.delete(breakdownOther);
        else hasMore = true;
      }
      results.push(
        ...seriesResults(trends, node, order, base.math, period, values, breakdown !== null, context),
      );
    }
  }
  const [current] = periods;
  return {
    results,
    hasMore,
    error: '',
    timings: [],
    resolved_date_range: {
      date_from: isoInTimezone(current!.range.from, context.timezone),
      date_to: isoInTimezone(current!.range.to, context.timezone),
    },
    timezone: context.timezone,
  };
}

/** How PostHog labels its breakdown sentinels (posthog/hogql_queries/insights/trends/breakdown.py). */
const displayValues: Readonly<Record<string, string>> = {
  [breakdownOther]: 'Other (i.e. all remaining values)',
  [breakdownNull]: 'None (i.e. no value)',
};

/** Breakdown values in PostHog's order: by total descending, "other" last. */
function orderedValues(values: SeriesValues): [string, Map<bigint, number>][] {
  // Each value's total once, not at every comparison: a sort of 1,001 values of 10,000 buckets each
  // summed every bucket of both sides per comparison (0.8 s of CPU per series).
  const totals = new Map<string, number>();
  for (const [value, buckets] of values) {
    let total = 0;
    for (const count of buckets.values()) total += count;
    totals.set(value, total);
  }
  return [...values].sort(([a], [b]) => {
    if ((a === breakdownOther) !== (b === breakdownOther)) return a === breakdownOther ? 1 : -1;
    return totals.get(b)! - totals.get(a)! || (a < b ? -1 : a > b ? 1 : 0);
  });
}

function seriesResults(
  trends: TrendsQuery,
  node: EventsNode,
  order: number,
  math: SeriesMath,
  period: Period,
  values: SeriesValues,
  withBreakdown: boolean,
  context: InsightContext,
): Record<string, unknown>[] {
  const interval = trends.interval ?? 'day';
  const label = node.event ?? 'All events';
  const entries = withBreakdown
    ? orderedValues(values)
    : [['', values.get('') ?? new Map<bigint, number>()] as const];
  return entries.map(([value, buckets]) => {
    const data = period.buckets.map((bucket) => buckets.get(bucket.start) ?? 0);
    const breakdownLabel = Object.hasOwn(displayValues, value) ? displayValues[value]! : value;
    return {
      data,
      labels: period.buckets.map((bucket) => bucketLabel(bucket, interval)),
      days: period.buckets.map((bucket) => bucketDay(bucket, interval)),
      count: data.reduce((sum, item) => sum + item, 0),
      label: !withBreakdown
        ? label
        : trends.series.length > 1
          ? `${label} - ${breakdownLabel}`
          : breakdownLabel,
      filter: {
        insight: 'TRENDS',
        properties: [],
        filter_test_accounts: false,
        date_from: isoInTimezone(period.range.from, context.timezone),
        date_to: isoInTimezone(period.range.to, context.timezone),
        entity_type: 'events',
        interval,
        ...(trends.breakdownFilter?.breakdown
          ? {
              breakdown: trends.breakdownFilter.breakdown,
              breakdown_type: trends.breakdownFilter.breakdown_type ?? 'event',
            }
          : {}),
      },
      action: {
        days: period.buckets.map((bucket) => bucketInstant(bucket, context.timezone)),
        id: label,
        type: 'events',
        order,
        name: label,
        custom_name: node.custom_name ?? null,
        math: node.math ? math : null,
        math_property: node.math_property ?? null,
        math_hogql: null,
        math_group_type_index: null,
        properties: {},
      },
      order,
      ...(withBreakdown ? { breakdown_value: value } : {}),
      ...(period.compare ? { compare: true, compare_label: period.compare } : {}),
    };
  });
}
