import type { DuckDBConnection } from '@duckdb/node-api';
import { runFunnels } from '../../../../functions/shared/query/insights/funnels';
import { runTrends } from '../../../../functions/shared/query/insights/trends';
import { type FixtureEvent, type Lake, lakeOf } from './lake-fixture';

/**
 * The insight's date range reaches the Parquet scan as a filter on the lake's `timestamp` column, so
 * DuckDB skips the row groups (and files) outside it. Seen in the plan: events outside the range
 * keep the filter from being dropped as always true.
 */

const context = { projectId: 7, timezone: 'Europe/Paris', now: new Date('2024-01-10T00:00:00Z') };
const pageview = (timestamp: string): FixtureEvent => ({
  project: 7,
  event: '$pageview',
  distinctId: 'd1',
  personId: null,
  timestamp,
});

let lake: Lake;
beforeAll(async () => {
  lake = await lakeOf(['2024-01-01T10:00:00Z', '2024-01-05T10:00:00Z', '2024-01-20T10:00:00Z'].map(pageview));
});
afterAll(async () => lake.close());

/** The SQL statements a run sends, recorded. */
function recording(connection: DuckDBConnection): { connection: DuckDBConnection; statements: string[] } {
  const statements: string[] = [];
  const proxy = new Proxy(connection, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof args[0] === 'string') statements.push(args[0]);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { connection: proxy, statements };
}

interface PlanNode {
  readonly name: string;
  readonly children: PlanNode[];
  readonly extra_info: Record<string, unknown>;
}

/** The filters of the plan's Parquet scans. */
async function scanFilters(sql: string): Promise<string[]> {
  const plan = await lake.connection.runAndReadAll(`EXPLAIN (FORMAT json) ${sql}`);
  const filters: string[] = [];
  const walk = (node: PlanNode): void => {
    if (node.name === 'READ_PARQUET') filters.push(...[node.extra_info.Filters ?? []].flat().map(String));
    node.children.forEach(walk);
  };
  (JSON.parse(String(plan.getRows()[0]![1])) as PlanNode[]).forEach(walk);
  return filters;
}

it('filters a trend’s range in the Parquet scan, on the raw timestamp', async () => {
  const { connection, statements } = recording(lake.connection);
  const response = await runTrends(
    connection,
    {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      dateRange: { date_from: '2024-01-03', date_to: '2024-01-06' },
    },
    context,
  );
  expect((response.results as { data: number[] }[])[0]!.data).toEqual([0, 0, 1, 0]);
  const series = statements.find((sql) => sql.includes(' AS value'));
  const plan = await scanFilters(series!);
  // Paris is UTC+1 in January: the range starts at 2 January, 23:00 UTC.
  expect(plan.join(' ')).toContain("timestamp>='2024-01-02 23:00:00'::TIMESTAMP");
});

it('filters a funnel’s range in the Parquet scan, on the raw timestamp', async () => {
  const { connection, statements } = recording(lake.connection);
  const response = await runFunnels(
    connection,
    {
      kind: 'FunnelsQuery',
      series: [
        { kind: 'EventsNode', event: '$pageview' },
        { kind: 'EventsNode', event: 'signup' },
      ],
      dateRange: { date_from: '2024-01-03', date_to: '2024-01-06' },
    },
    context,
  );
  expect((response.results as { count: number }[]).map((step) => step.count)).toEqual([1, 0]);
  const walk = statements.find((sql) => sql.includes('list_reduce'));
  expect((await scanFilters(walk!)).join(' ')).toContain("timestamp>='2024-01-02 23:00:00'::TIMESTAMP");
});

it('buckets events by local day across a daylight-saving change (the bucket starts of the period)', async () => {
  // New York moves from UTC-5 to UTC-4 at 2:00 on 10 March 2024.
  const springLake = await lakeOf(
    [
      '2024-03-10T04:30:00Z', // 9 March, 23:30 EST
      '2024-03-10T05:30:00Z', // 10 March, 00:30 EST
      '2024-03-11T03:30:00Z', // 10 March, 23:30 EDT
      '2024-03-11T04:30:00Z', // 11 March, 00:30 EDT
      '2024-03-11T05:30:00Z', // 11 March, 01:30 EDT
    ].map(pageview),
  );
  try {
    const response = await runTrends(
      springLake.connection,
      {
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview' }],
        dateRange: { date_from: '2024-03-09', date_to: '2024-03-11' },
      },
      { projectId: 7, timezone: 'America/New_York', now: new Date('2024-03-20T00:00:00Z') },
    );
    const [series] = response.results as { data: number[]; days: string[] }[];
    expect(series!.days).toEqual(['2024-03-09', '2024-03-10', '2024-03-11']);
    expect(series!.data).toEqual([1, 2, 2]);
  } finally {
    await springLake.close();
  }
});
