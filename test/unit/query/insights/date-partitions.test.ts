import { planQuery } from '../../../../functions/query/plan';
import {
  funnelsPartitions,
  maxPartitions,
  trendsPartitions,
} from '../../../../functions/shared/query/insights/date-partitions';
import type { InsightContext } from '../../../../functions/shared/query/insights/context';
import { runFunnels } from '../../../../functions/shared/query/insights/funnels';
import { funnelsQuerySchema, trendsQuerySchema } from '../../../../functions/shared/query/insights/schema';
import { runTrends } from '../../../../functions/shared/query/insights/trends';
import { type FixtureEvent, type Lake, lakeOf } from './lake-fixture';

/**
 * An insight reads only the lake partitions (UTC days) its range can touch, worked out before any
 * file is listed: the same answers as over every partition, in timezones far from UTC either way.
 */

const now = new Date('2024-03-10T05:30:00Z');
/** UTC+14, UTC-11, and one with daylight saving. */
const timezones = ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/New_York'];

/**
 * Every 5 hours from 1 January to 20 March, cycling through three events, two persons, two browsers:
 * a file per day from a month before the earliest day any case reads (the 30 days a monthly active
 * count looks back from 29 February) to past `now`.
 */
const events: FixtureEvent[] = Array.from({ length: ((80 * 24) / 5) | 0 }, (_, index) => ({
  project: 3,
  event: ['$pageview', 'signup', 'purchase'][index % 3]!,
  distinctId: `d${index % 7}`,
  personId: index % 5 === 0 ? null : `p${index % 4}`,
  timestamp: new Date(Date.UTC(2024, 0, 1) + index * 5 * 3_600_000).toISOString(),
  properties: { $browser: index % 2 === 0 ? 'Chrome' : 'Safari' },
}));

const trendsQueries = [
  { dateRange: { date_from: '-7d' } },
  { dateRange: { date_from: '-1m' }, interval: 'week' },
  { dateRange: { date_from: 'mStart' }, interval: 'day' },
  { dateRange: { date_from: '-1wStart', date_to: '-1wEnd' }, interval: 'week' },
  { dateRange: { date_from: '-3d' }, interval: 'month' },
  { dateRange: { date_from: '2024-02-01', date_to: '2024-02-03' }, interval: 'hour' },
  { dateRange: { date_from: '2024-02-10T22:00:00', date_to: '2024-02-11T03:00:00', explicitDate: true } },
  { dateRange: { date_from: '-14d' }, compareFilter: { compare: true } },
  { dateRange: { date_from: '2024-02-01', date_to: '2024-02-07' }, compareFilter: { compare: true } },
  { dateRange: { date_from: '-3d' }, compareFilter: { compare: true, compare_to: '-4w' } },
  { dateRange: { date_from: '-10d' }, math: 'weekly_active' },
  { dateRange: { date_from: '-10d' }, math: 'monthly_active', breakdown: true },
].map(({ math, breakdown, ...rest }) => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: '$pageview', ...(math ? { math } : {}) }],
  ...(breakdown ? { breakdownFilter: { breakdown: '$browser' } } : {}),
  ...rest,
}));

const funnelsQueries = [
  { date_from: '-7d' },
  { date_from: '2024-02-01', date_to: '2024-02-02' },
  { date_from: '-1wStart', date_to: '-1wEnd' },
].map((dateRange) => ({
  kind: 'FunnelsQuery',
  series: ['$pageview', 'signup', 'purchase'].map((event) => ({ kind: 'EventsNode', event })),
  dateRange,
  funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' },
}));

let lake: Lake;
beforeAll(async () => {
  lake = await lakeOf(events);
  await lake.connection.run('ALTER VIEW events RENAME TO every_partition');
});
afterAll(async () => lake.close());

/** `events` as the query function makes it from the files of `dates` only (every file without). */
async function readPartitions(dates: readonly string[] | undefined): Promise<void> {
  const where = dates ? `WHERE CAST("date" AS VARCHAR) IN (${dates.map((d) => `'${d}'`).join(', ')})` : '';
  await lake.connection.run(`CREATE OR REPLACE VIEW events AS SELECT * FROM every_partition ${where}`);
}

/** Every UTC day from `first` to `last`, both included. */
function utcDays(first: string, last: string): string[] {
  const days: string[] = [];
  for (
    let day = new Date(`${first}T00:00:00Z`);
    day <= new Date(`${last}T00:00:00Z`);
    day.setUTCDate(day.getUTCDate() + 1)
  )
    days.push(day.toISOString().slice(0, 10));
  return days;
}

type Run = (connection: Lake['connection'], query: unknown, context: InsightContext) => Promise<unknown>;

/** The answer of `run` over the partitions of `dates` only is the answer over every partition. */
async function expectSameAnswer(
  run: Run,
  query: object,
  dates: readonly string[] | undefined,
  context: InsightContext,
) {
  expect(dates).toBeDefined();
  await readPartitions(undefined);
  const everything = await run(lake.connection, query, context);
  await readPartitions(dates);
  expect({ query, answer: await run(lake.connection, query, context) }).toEqual({
    query,
    answer: everything,
  });
}

describe('the partitions of an insight', () => {
  it.each(timezones)('answers trends and funnels as over every partition, in %s', async (timezone) => {
    const context = { projectId: 3, timezone, now };
    const cases: [Run, object, string[] | undefined][] = [
      ...trendsQueries.map((q): [Run, object, string[] | undefined] => [
        runTrends,
        q,
        trendsPartitions(trendsQuerySchema.parse(q), now),
      ]),
      ...funnelsQueries.map((q): [Run, object, string[] | undefined] => [
        runFunnels,
        q,
        funnelsPartitions(funnelsQuerySchema.parse(q), now),
      ]),
    ];
    for (const [run, query, dates] of cases) await expectSameAnswer(run, query, dates, context);
  });

  it('is the days of the range, two either side and its first bucket', () => {
    const query = trendsQuerySchema.parse({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      dateRange: { date_from: '2024-02-01', date_to: '2024-02-03' },
    });
    expect(trendsPartitions(query, now)).toEqual(utcDays('2024-01-29', '2024-02-06'));
  });

  it('is every partition from `all`, or past the most listed one by one', () => {
    const trends = (dateRange: object) =>
      trendsQuerySchema.parse({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode' }], dateRange });
    expect(trendsPartitions(trends({ date_from: 'all' }), now)).toBeUndefined();
    expect(trendsPartitions(trends({ date_from: `-${maxPartitions}d` }), now)).toBeUndefined();
    expect(trendsPartitions(trends({ date_from: '-3m' }), now)).toBeUndefined();
    expect(trendsPartitions(trends({ date_from: 'not a date' }), now)).toBeUndefined();
    expect(trendsPartitions(trends({ date_from: '-30d' }), now)).toHaveLength(36);
  });

  it('is what the query function lists for an insight, before any file is read', async () => {
    const context = { projectId: 3, timezone: 'UTC', now, personsOf: async () => new Map() };
    const plan = await planQuery(trendsQueries[0] as never, context);
    expect(plan.dates).toEqual(trendsPartitions(trendsQuerySchema.parse(trendsQueries[0]), now));
    expect(plan.dates).toContain('2024-03-03');
    const funnel = await planQuery(funnelsQueries[1] as never, context);
    expect(funnel.dates).toEqual(utcDays('2024-01-30', '2024-02-05'));
  });
});
