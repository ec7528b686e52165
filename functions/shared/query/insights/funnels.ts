import type { DuckDBConnection } from '@duckdb/node-api';
import { ValidationError } from '../../http/errors';
import { utcTimestampColumn } from '../hogql/events-table';
import { identifier } from '../hogql/sql';
import { isoInTimezone } from '../values';
import { actorSql, breakdownValueSql, type InsightContext, nodeSql, prepareConnection } from './context';
import { resolveDateRange, utcRangeSql } from './date-range';
import { type FunnelGroup, type Touch, funnelActorsSql, funnelGroupsSql } from './funnel-sql';
import { type FunnelEvent, type FunnelOutcome, type FunnelSpec, funnelOutcome } from './funnel-walk';
import { propertiesSql } from './property-filters';
import { type EventsNode, type FunnelsQuery, funnelsQuerySchema, parseInsightQuery } from './schema';

export type { InsightContext } from './context';

/**
 * PostHog's FunnelsQuery, `steps` visualisation (posthog/hogql_queries/insights/funnels/), over the
 * lake: one SQL query reads the events of any step or exclusion in the date range, ordered by actor
 * and time (the actor is the person, or the distinct id when the lake row has no person id); each
 * actor's events go through the funnel walk (./funnel-walk.ts) as they stream in.
 */

/** Seconds per `funnelWindowIntervalUnit`; a month is 30 days (PostHog's DATERANGE_MAP). */
const unitSeconds = {
  second: 1,
  minute: 60,
  hour: 3_600,
  day: 86_400,
  week: 604_800,
  month: 2_592_000,
} as const;

const defaultBreakdownLimit = 25;

function specOf(funnels: FunnelsQuery): FunnelSpec {
  const filter = funnels.funnelsFilter;
  const steps = funnels.series.length;
  const order = filter?.funnelOrderType ?? 'ordered';
  const exclusions = (filter?.exclusions ?? []).map((exclusion, index) => {
    const attr = `funnelsFilter__exclusions__${index}`;
    if (exclusion.funnelToStep > steps - 1)
      throw new ValidationError(
        'invalid_input',
        `funnelToStep is out of bounds. It must be between 1 and ${steps - 1}.`,
        `${attr}__funnelToStep`,
      );
    if (exclusion.funnelFromStep >= exclusion.funnelToStep)
      throw new ValidationError(
        'invalid_input',
        'funnelFromStep must be before funnelToStep',
        `${attr}__funnelFromStep`,
      );
    if (order === 'unordered' && (exclusion.funnelFromStep !== 0 || exclusion.funnelToStep !== steps - 1))
      throw new ValidationError(
        'invalid_input',
        'Exclusions of an unordered funnel must span the whole funnel',
        attr,
      );
    return { from: exclusion.funnelFromStep, to: exclusion.funnelToStep };
  });
  const window =
    (filter?.funnelWindowInterval ?? 14) * unitSeconds[filter?.funnelWindowIntervalUnit ?? 'day'];
  return { steps, windowSeconds: window, order, exclusions };
}

/** A bit per node the event is (step k: bit k), as SQL. */
function maskSql(nodes: readonly EventsNode[], attr: string): string {
  if (nodes.length === 0) return '0';
  return nodes
    .map((node, index) => `(CASE WHEN ${nodeSql(node, `${attr}__${index}`)} THEN ${2 ** index} ELSE 0 END)`)
    .join(' + ');
}

interface ActorOutcome extends FunnelOutcome {
  readonly breakdown: string;
}

/** Reads the funnel's events actor by actor and walks each actor's funnel (the unordered funnel). */
async function actorOutcomes(
  connection: DuckDBConnection,
  sql: string,
  spec: FunnelSpec,
  lastTouch: boolean,
): Promise<ActorOutcome[]> {
  const outcomes: ActorOutcome[] = [];
  let actor: string | null = null;
  let events: FunnelEvent[] = [];
  let breakdown: string | null = null;
  const flush = (): void => {
    const outcome = actor === null ? null : funnelOutcome(spec, events);
    if (outcome && outcome.reached >= 0) outcomes.push({ ...outcome, breakdown: breakdown ?? '' });
    events = [];
    breakdown = null;
  };
  const result = await connection.stream(`${sql} ORDER BY actor, t, u`);
  for await (const rows of result.yieldRows()) {
    for (const [rowActor, time, uuid, steps, exclusions, value] of rows) {
      if (rowActor !== actor) {
        flush();
        actor = rowActor as string;
      }
      events.push({
        time: Number(time) / 1e6,
        uuid: String(uuid),
        steps: Number(steps),
        exclusions: Number(exclusions),
      });
      // First (last) touch: the first (last) non-empty breakdown value among the actor's step events.
      if (Number(steps) !== 0 && value !== null && value !== '' && (lastTouch || breakdown === null))
        breakdown = value as string;
    }
  }
  flush();
  return outcomes;
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The figures of one group of walked actors (as funnelGroupsSql computes them in SQL). */
function groupOf(value: string | null, steps: number, outcomes: readonly ActorOutcome[]): FunnelGroup {
  const reached = (step: number) => outcomes.filter((outcome) => outcome.reached >= step);
  // Only conversions that took time count (PostHog's groupArrayIf(timings[i], timings[i] > 0)).
  const times = (step: number) =>
    step === 0
      ? []
      : reached(step)
          .map((outcome) => outcome.timings[step - 1]!)
          .filter((time) => time > 0);
  const all = Array.from({ length: steps }, (_, step) => step);
  return {
    value,
    counts: all.map((step) => reached(step).length),
    averages: all.map((step) => mean(times(step))),
    medians: all.map((step) => median(times(step))),
  };
}

/** The walked actors' groups: the `limit` values with the most actors, then the rest (value null). */
function groupsOf(steps: number, outcomes: readonly ActorOutcome[], limit: number): FunnelGroup[] {
  const byValue = new Map<string, ActorOutcome[]>();
  for (const outcome of outcomes) {
    // Appended in place: copying the group for each actor was quadratic in the actors of one value.
    const items = byValue.get(outcome.breakdown);
    if (items) items.push(outcome);
    else byValue.set(outcome.breakdown, [outcome]);
  }
  const ranked = [...byValue].sort(([a, x], [b, y]) => y.length - x.length || (a < b ? -1 : a > b ? 1 : 0));
  const groups = ranked.slice(0, limit).map(([value, items]) => groupOf(value, steps, items));
  const rest = ranked.slice(limit).flatMap(([, items]) => items);
  if (rest.length > 0) groups.push(groupOf(null, steps, rest));
  return groups;
}

/** The groups of an ordered or strict funnel, walked in SQL (./funnel-sql.ts). */
async function sqlGroups(
  connection: DuckDBConnection,
  events: string,
  spec: FunnelSpec,
  touch: Touch,
  limit: number,
): Promise<FunnelGroup[]> {
  const reader = await connection.runAndReadAll(
    funnelGroupsSql(spec.steps, funnelActorsSql(spec, events, touch), limit),
  );
  return reader.getRows().map(([value, ...figures]) => {
    const number = (index: number): number | null => {
      const item = figures[index];
      return item === null || item === undefined ? null : Number(item);
    };
    const all = Array.from({ length: spec.steps }, (_, step) => step);
    return {
      value: value as string | null,
      counts: all.map((step) => number(step === 0 ? 0 : 3 * step - 2) ?? 0),
      averages: all.map((step) => (step === 0 ? null : number(3 * step - 1))),
      medians: all.map((step) => (step === 0 ? null : number(3 * step))),
    };
  });
}

/** PostHog's step objects (base.py::_serialize_step) for one group's figures. */
function stepsOf(funnels: FunnelsQuery, spec: FunnelSpec, group: FunnelGroup, breakdown: string | null) {
  return funnels.series.map((node, order) => {
    const unordered = spec.order === 'unordered';
    const name = unordered
      ? `Completed ${order + 1} step${order === 0 ? '' : 's'}`
      : (node.event ?? 'All events');
    return {
      action_id: unordered ? null : (node.event ?? null),
      name,
      custom_name: node.custom_name ?? null,
      order,
      people: [],
      count: group.counts[order]!,
      type: 'events',
      average_conversion_time: group.averages[order]!,
      median_conversion_time: group.medians[order]!,
      ...(breakdown === null ? {} : { breakdown: [breakdown], breakdown_value: [breakdown] }),
    };
  });
}

export async function runFunnels(
  connection: DuckDBConnection,
  query: unknown,
  context: InsightContext,
): Promise<Record<string, unknown>> {
  const funnels = parseInsightQuery(funnelsQuerySchema, query);
  const spec = specOf(funnels);
  const relation = await prepareConnection(connection, context);
  const steps = maskSql(funnels.series, 'series');
  const exclusions = maskSql(funnels.funnelsFilter?.exclusions ?? [], 'funnelsFilter__exclusions');
  const range = await resolveDateRange(
    connection,
    funnels.dateRange,
    'day',
    context.now,
    `SELECT min("timestamp") FROM ${relation} AS events WHERE (${steps}) <> 0`,
  );
  const breakdown = breakdownValueSql(funnels.breakdownFilter);
  const events =
    `SELECT * FROM (SELECT ${actorSql} AS actor, epoch_us(${identifier(utcTimestampColumn)}) AS t, "uuid"::UUID AS u, ` +
    `${steps} AS steps, ${exclusions} AS exclusions, ${breakdown ?? 'NULL'}::VARCHAR AS breakdown FROM ${relation} AS events ` +
    `WHERE ${utcRangeSql(range)} AND ${propertiesSql(funnels.properties, 'properties')})` +
    // A strict funnel needs every event of its actors: any other event breaks a sequence.
    (spec.order === 'strict' ? '' : ' WHERE steps <> 0 OR exclusions <> 0');
  const lastTouch = funnels.funnelsFilter?.breakdownAttributionType === 'last_touch';
  const limit = breakdown === null ? 1 : (funnels.breakdownFilter?.breakdown_limit ?? defaultBreakdownLimit);
  const groups =
    spec.order === 'unordered'
      ? groupsOf(spec.steps, await actorOutcomes(connection, events, spec, lastTouch), limit)
      : await sqlGroups(
          connection,
          events,
          spec,
          breakdown === null ? null : lastTouch ? 'last' : 'first',
          limit,
        );
  const resolved = {
    date_from: isoInTimezone(range.from, context.timezone),
    date_to: isoInTimezone(range.to, context.timezone),
  };
  const results =
    groups.length === 0
      ? []
      : breakdown === null
        ? stepsOf(funnels, spec, groups[0]!, null)
        : breakdownResults(funnels, spec, groups);
  // `isUdf`: the walk is PostHog's funnel UDF's algorithm.
  return { results, isUdf: true, timezone: context.timezone, resolved_date_range: resolved };
}

/**
 * One step list per breakdown group, the values past the limit as `Other` (funnels use the literal,
 * not the trends sentinel), ordered by the last step's count, then the earlier steps', descending.
 */
function breakdownResults(funnels: FunnelsQuery, spec: FunnelSpec, groups: readonly FunnelGroup[]) {
  const lists = groups.map((group) => stepsOf(funnels, spec, group, group.value ?? 'Other'));
  return lists.sort((a, b) => {
    for (let step = a.length - 1; step >= 0; step--) {
      const difference = b[step]!.count - a[step]!.count;
      if (difference !== 0) return difference;
    }
    return 0;
  });
}
