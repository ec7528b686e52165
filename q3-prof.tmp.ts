import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { duckDbType, lakeColumns } from './functions/shared/lake/schema';
import { runTrends } from './functions/shared/query/insights/trends';
import { runFunnels } from './functions/shared/query/insights/funnels';
const total = 200_000, users = 4000, start = Date.UTC(2024, 0, 1), spanMicros = 30n * 86_400_000_000n;
function columnSql(name: string): string {
  const values: Record<string, string> = {
    uuid: 'uuid()::VARCHAR',
    event: `CASE i % 10 WHEN 0 THEN 'purchase' WHEN 1 THEN 'signup' WHEN 2 THEN 'signup' WHEN 3 THEN 'other' ELSE '$pageview' END`,
    distinct_id: `'u' || (hash(i) % ${users})`, person_id: `'p' || (hash(i) % ${users})`,
    timestamp: `make_timestamp(${start * 1000} + (i * ${spanMicros} // ${total}))`,
    mat_browser: `['Chrome', 'Firefox', 'Safari', 'Edge', 'Opera'][1 + (hash(i * 7) % 5)::BIGINT]`,
    properties: `'{}'`, person_properties: `'{}'`, elements_chain: `''`,
  };
  return Object.hasOwn(values, name) ? values[name]! : 'NULL';
}
(async () => {
  const root = await mkdtemp(join(tmpdir(), 'q3-prof-'));
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const cols = lakeColumns.map((col) => `CAST(${columnSql(col.name)} AS ${duckDbType(col.type)}) AS "${col.name}"`);
  await c.run(`COPY (SELECT ${cols.join(', ')}, 1 AS project_id, strftime("timestamp", '%Y-%m-%d') AS date FROM range(${total}) AS r(i)) TO '${root}/events' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (project_id, date))`);
  await c.run(`CREATE VIEW events AS SELECT * FROM read_parquet('${root}/events/*/*/*.parquet', hive_partitioning = true)`);
  const orig = c.runAndReadAll.bind(c);
  const log: string[] = []; let T0 = 0;
  (c as any).runAndReadAll = async (sql: string) => { const t = performance.now(); const r = await orig(sql); log.push(`${(t - T0).toFixed(0)}@ ${(performance.now() - t).toFixed(1)}ms ${sql.slice(0, 100)}`); return r; };
  const origRun = c.run.bind(c);
  (c as any).run = async (sql: string) => { const t = performance.now(); const r = await origRun(sql); log.push(`run ${(performance.now() - t).toFixed(1)}ms ${sql.slice(0, 100)}`); return r; };
  const origStream = c.stream.bind(c);
  (c as any).stream = async (sql: string) => { log.push(`stream ${sql.slice(0, 2000)}`); return origStream(sql); };
  const context = { projectId: 1, timezone: 'UTC', now: new Date(start + 30 * 86_400_000 - 1) };
  const dateRange = { date_from: '2024-01-01', date_to: '2024-01-30' };
  const mode = process.argv[2];
  for (let k = 0; k < 3; k++) {
    log.length = 0;
    const t = performance.now(); T0 = t;
    if (mode === 'trend') await runTrends(c, { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange, breakdownFilter: { breakdown: '$browser' } }, context);
    else await runFunnels(c, { kind: 'FunnelsQuery', series: ['$pageview', 'signup', 'purchase'].map((event) => ({ kind: 'EventsNode', event })), dateRange }, context);
    console.log('total', (performance.now() - t).toFixed(1)); console.log(log.join('\n'));
  }
  const hand = `SELECT date_trunc('day', "timestamp"), mat_browser, count(DISTINCT coalesce(person_id, distinct_id)) FROM events WHERE "timestamp" >= TIMESTAMP '2024-01-01' AND "timestamp" < TIMESTAMP '2024-01-31' AND project_id = 1 AND event = '$pageview' GROUP BY ALL`;
  for (let k = 0; k < 3; k++) { const t = performance.now(); await orig(hand); console.log('hand', (performance.now() - t).toFixed(1)); }
})();
