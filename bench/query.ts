import type { DuckDBConnection } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { duckDbType, lakeColumns } from '../functions/shared/lake/schema';
import { runHogQL } from '../functions/shared/query/execute';
import { compileHogQL } from '../functions/shared/query/hogql/compile';
import { runFunnels } from '../functions/shared/query/insights/funnels';
import { runTrends } from '../functions/shared/query/insights/trends';
import { benchSetting, report, round } from './lib';
import { bundle, environment, loadOnce, median as medianOf, parserOf } from './support/function-load';

/**
 * The query API's compilers against hand-written DuckDB SQL over the same lake files: N events
 * (10,000,000, or 200,000 in a short run) over 30 days of one project, written straight to Hive
 * partitions by DuckDB. Three queries, each timed as the median of interleaved runs against its
 * hand-written twin: a 30-day daily trend of DAU broken down by `$browser`, a 3-step funnel with a
 * 14-day window, and a HogQL count by event. Target: each ratio ≤ 1.3.
 *
 * Then the query function's cold start, as bench/cold-start.ts measures it: its bundle's size and the
 * median time a fresh process takes to load it, the HogQL parser's first load and parse, and DuckDB's
 * first query (loading the native module from the asset's node_modules, opening a database, one
 * statement), what a container's first request pays on top of its query.
 */
const total = benchSetting('BENCH_EVENTS', 10_000_000, 200_000);
const samples = benchSetting('BENCH_SAMPLES', 5, 3);
const users = Math.max(100, Math.floor(total / 50));
const start = Date.UTC(2024, 0, 1);
const spanMicros = 30n * 86_400_000_000n;
const context = { projectId: 1, timezone: 'UTC', now: new Date(start + 30 * 86_400_000 - 1) };
const dateRange = { date_from: '2024-01-01', date_to: '2024-01-30' };

/** A lake column's value for generated row `i` (DuckDB SQL over `range`). */
function columnSql(name: string): string {
  // i × 30 days in micros passes INT64 from 3.6 million events on: multiplied as HUGEINT.
  const time = `make_timestamp((${start * 1000} + i::HUGEINT * ${spanMicros} // ${total})::BIGINT)`;
  const values: Record<string, string> = {
    uuid: 'uuid()::VARCHAR',
    event: `CASE i % 10 WHEN 0 THEN 'purchase' WHEN 1 THEN 'signup' WHEN 2 THEN 'signup' WHEN 3 THEN 'other' ELSE '$pageview' END`,
    distinct_id: `'u' || (hash(i) % ${users})`,
    person_id: `'p' || (hash(i) % ${users})`,
    timestamp: time,
    inserted_at: time,
    created_at: time,
    mat_browser: `['Chrome', 'Firefox', 'Safari', 'Edge', 'Opera'][1 + (hash(i * 7) % 5)::BIGINT]`,
    properties: `'{}'`,
    person_properties: `'{}'`,
    elements_chain: `''`,
  };
  return Object.hasOwn(values, name) ? values[name]! : 'NULL';
}

async function writeLake(connection: DuckDBConnection, root: string): Promise<void> {
  const columns = lakeColumns.map(
    (column) => `CAST(${columnSql(column.name)} AS ${duckDbType(column.type)}) AS "${column.name}"`,
  );
  await connection.run(
    `COPY (SELECT ${columns.join(', ')}, 1 AS project_id, strftime("timestamp", '%Y-%m-%d') AS date ` +
      `FROM range(${total}) AS r(i)) TO '${root}/events' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (project_id, date))`,
  );
  await connection.run(
    `CREATE VIEW events AS SELECT * FROM read_parquet('${root}/events/*/*/*.parquet', hive_partitioning = true)`,
  );
}

const range = `"timestamp" >= TIMESTAMP '2024-01-01' AND "timestamp" < TIMESTAMP '2024-01-31' AND project_id = 1`;
const handTrend =
  `SELECT date_trunc('day', "timestamp"), mat_browser, count(DISTINCT coalesce(person_id, distinct_id)) FROM events ` +
  `WHERE ${range} AND event = '$pageview' GROUP BY ALL`;
/**
 * The funnel by hand, with the compiler's semantics (PostHog's ordered funnel): every `$pageview`
 * starts an attempt, which takes the first `signup` at or after it, then the first `purchase` at or
 * after that, each within 14 days of the start; an actor's furthest attempt counts. The first
 * `purchase` after the first `signup` at or after a time is the smallest such time over the
 * `signup`s from then on (it grows with the `signup`), hence two window passes. Step counts only:
 * the compiler also computes conversion times.
 */
const following = 'OVER (PARTITION BY a ORDER BY t RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)';
const handFunnel = `WITH e AS (SELECT coalesce(person_id, distinct_id) AS a, "timestamp" AS t, CASE event WHEN '$pageview' THEN 0 WHEN 'signup' THEN 1 ELSE 2 END AS s
   FROM events WHERE ${range} AND event IN ('$pageview', 'signup', 'purchase')),
 w AS (SELECT a, t, s, min(CASE WHEN s = 2 THEN t END) ${following} AS next2 FROM e),
 c AS (SELECT a, t, s, min(CASE WHEN s = 1 THEN t END) ${following} AS t1, min(CASE WHEN s = 1 THEN next2 END) ${following} AS t2 FROM w),
 r AS (SELECT a, max(CASE WHEN t2 <= t + INTERVAL 14 DAY THEN 2 WHEN t1 <= t + INTERVAL 14 DAY THEN 1 ELSE 0 END) AS reached FROM c WHERE s = 0 GROUP BY a)
 SELECT count(*), count(*) FILTER (WHERE reached >= 1), count(*) FILTER (WHERE reached >= 2) FROM r`;
const handCount = `SELECT event, count(*) FROM events WHERE project_id = 1 GROUP BY event`;

const coldLoads = benchSetting('BENCH_LOADS', 5, 1);

/** Run in a fresh process: DuckDB's first query as the bundle named by the first argument finds it. */
const duckDbScript = `
(async () => {
  const started = performance.now();
  const { DuckDBInstance } = require('node:module').createRequire(process.argv[1])('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  (await instance.connect()).closeSync();
  const connection = await instance.connect();
  await connection.runAndReadAll('SELECT 42');
  process.stdout.write(String(performance.now() - started));
})();
`;

/** The query function's cold start figures. */
async function queryColdStart(): Promise<Record<string, string>> {
  const outdir = await mkdtemp(join(tmpdir(), 'flock-bench-query-bundle-'));
  try {
    const file = await bundle('query', outdir);
    const loads = Array.from({ length: coldLoads }, () => loadOnce(file, parserOf('query')));
    const duckDb = Array.from({ length: coldLoads }, () =>
      Number(
        execFileSync(process.execPath, ['-e', duckDbScript, file], { env: environment, encoding: 'utf8' }),
      ),
    );
    const parser = loads.flatMap((load) => (load.parser ? [load.parser.wallMs] : []));
    return {
      'query function bundle (KB)': `${round(statSync(file).size / 1024, 0)}`,
      'query function cold start: module load ms': `${round(medianOf(loads.map((load) => load.wallMs)), 1)} (CPU ${round(medianOf(loads.map((load) => load.cpuMs)), 1)})`,
      "query function cold start: HogQL parser's first load and parse ms": `${round(medianOf(parser), 1)}`,
      "query function cold start: DuckDB's first query ms": `${round(medianOf(duckDb), 1)}`,
      'cold start loads': `${coldLoads} each (median), each in a fresh process`,
    };
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

const series = (event: string) => ({ kind: 'EventsNode', event });

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'flock-bench-query-'));
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const generated = await timed(() => writeLake(connection, root));
    const compiledCount = await compileHogQL('select event, count() from events group by event', {
      projectId: 1,
    });
    const pairs: Record<string, [() => Promise<unknown>, () => Promise<unknown>]> = {
      'trend (DAU by $browser, 30 days)': [
        () =>
          runTrends(
            connection,
            {
              kind: 'TrendsQuery',
              series: [{ ...series('$pageview'), math: 'dau' }],
              dateRange,
              breakdownFilter: { breakdown: '$browser' },
            },
            context,
          ),
        () => connection.runAndReadAll(handTrend),
      ],
      'funnel (3 steps, 14 days)': [
        () =>
          runFunnels(
            connection,
            { kind: 'FunnelsQuery', series: ['$pageview', 'signup', 'purchase'].map(series), dateRange },
            context,
          ),
        () => connection.runAndReadAll(handFunnel),
      ],
      'HogQL count by event': [
        () => runHogQL(connection, compiledCount, 'UTC'),
        () => connection.runAndReadAll(handCount),
      ],
    };
    const figures: Record<string, number | string> = {
      events: total,
      'lake written (s)': round(generated / 1000, 1),
    };
    const ratios: number[] = [];
    for (const [name, [ours, hand]] of Object.entries(pairs)) {
      const oursTimes: number[] = [];
      const handTimes: number[] = [];
      for (let sample = 0; sample < samples; sample++) {
        oursTimes.push(await timed(ours));
        handTimes.push(await timed(hand));
      }
      const ratio = median(oursTimes) / median(handTimes);
      ratios.push(ratio);
      figures[`${name}: ms (hand-written ms)`] =
        `${round(median(oursTimes), 1)} (${round(median(handTimes), 1)})`;
      figures[`${name}: ratio`] = round(ratio);
    }
    Object.assign(figures, await queryColdStart());
    figures['load average (1 min)'] = round(loadavg()[0]!, 1);
    const worst = Math.max(...ratios);
    report('query compilers vs hand-written DuckDB', figures, 'each ratio ≤ 1.3', {
      figure: `worst ratio ${round(worst)}`,
      met: worst <= 1.3,
    });
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(root, { recursive: true, force: true });
  }
}

void main();
