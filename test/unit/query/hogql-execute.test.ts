import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parquetOf } from '../../../functions/lake/parquet';
import { lakeDateOf, lakeFileKey } from '../../../functions/shared/lake/layout';
import type { LakeEvent } from '../../../functions/shared/lake/row';
import { lakeRowOf } from '../../../functions/shared/lake/row';
import { runHogQL } from '../../../functions/shared/query/execute';
import { compileHogQL } from '../../../functions/shared/query/hogql/compile';
import { HogQLError } from '../../../functions/shared/query/hogql/errors';
import { lakeEvent } from '../../helpers/query';

let sequence = 0;
/** A lake event with a uuid in the order of creation. */
const event = (...args: Parameters<typeof lakeEvent>): LakeEvent => ({
  ...lakeEvent(...args),
  uuid: `0190a1b2-0000-7000-8000-${String(++sequence).padStart(12, '0')}`,
});

/** Project 7 (America/New_York): hand-counted below. Project 8: rows no query of 7 may count. */
const fixture: Record<number, LakeEvent[]> = {
  7: [
    event('$pageview', 'u1', '2024-03-04T03:00:00.000Z', { $browser: 'Firefox' }), // New York: 3 March, 22:00
    event('$pageview', 'u1', '2024-03-04T15:00:00.000Z', { $browser: 'Chrome' }),
    event('$pageview', 'u2', '2024-03-05T12:00:00.000Z', { $browser: 'Firefox' }),
    event('signup', 'u2', '2024-03-05T13:00:00.123Z', { plan: 'pro', amount: 30 }),
    event('signup', 'u3', '2024-03-06T01:00:00.000Z', { plan: 'free', amount: 12 }), // New York: 5 March, 20:00
  ],
  8: [
    event('$pageview', 'x1', '2024-03-04T12:00:00.000Z', { $browser: 'Firefox' }),
    event('signup', 'x2', '2024-03-05T12:00:00.000Z', { plan: 'pro', amount: 1000 }),
    event('signup', 'x3', '2024-03-05T13:00:00.000Z', { plan: 'pro', amount: 1000 }),
  ],
};

let root: string;
let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'flock-hogql-'));
  for (const [project, events] of Object.entries(fixture)) {
    for (const [index, item] of events.entries()) {
      const key = lakeFileKey(Number(project), lakeDateOf(item.timestamp), `file-${index}`);
      await mkdir(dirname(join(root, key)), { recursive: true });
      await writeFile(join(root, key), await parquetOf([lakeRowOf(item, {}, new Date(item.timestamp))]));
    }
  }
  const { DuckDBInstance } = await import('@duckdb/node-api');
  instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  connection = await instance.connect();
  await connection.run(
    `CREATE VIEW events AS SELECT * FROM read_parquet('${root}/events/*/*/*.parquet', hive_partitioning = true)`,
  );
});

afterAll(async () => {
  connection.closeSync();
  instance.closeSync();
  await rm(root, { recursive: true, force: true });
});

const run = async (text: string, timezone = 'America/New_York', projectId = 7) =>
  runHogQL(connection, await compileHogQL(text, { projectId }), timezone);

describe('HogQL on DuckDB over lake files', () => {
  it('counts by event, the project’s rows only, with PostHog’s columns and types', async () => {
    const result = await run('select event, count() as c from events group by event order by event');
    expect(result).toEqual({
      columns: ['event', 'c'],
      types: [
        ['event', 'String'],
        ['c', 'Int64'],
      ],
      results: [
        ['$pageview', 3],
        ['signup', 2],
      ],
      hasMore: false,
      limit: 100,
      offset: 0,
    });
    expect((await run('select count() from events', 'UTC', 8)).results).toEqual([[3]]);
  });

  it('aggregates properties, materialised and not, and person properties', async () => {
    const result = await run(
      "select uniq(distinct_id), countIf(event = 'signup'), sum(JSONExtractInt(properties, 'amount')), countIf(properties.$browser = 'Firefox'), countIf(person.properties.email like 'u2@%') from events limit 5",
    );
    expect(result.results).toEqual([[3, 2, 42, 2, 2]]);
    expect(result).toMatchObject({ hasMore: null, limit: null, offset: null });
    const byBrowser = await run(
      'select properties.$browser, count() from events group by $browser order by $browser',
    );
    expect(byBrowser.columns).toEqual(['$browser', 'count()']);
    expect(byBrowser.results).toEqual([
      ['Chrome', 1],
      ['Firefox', 2],
      [null, 2],
    ]);
  });

  it('buckets days in the project’s timezone and prints datetimes in it', async () => {
    const days = await run(
      'select toStartOfDay(timestamp) as day, count() from events group by day order by day',
    );
    expect(days.types[0]).toEqual(['day', "DateTime64(6, 'America/New_York')"]);
    expect(days.results).toEqual([
      ['2024-03-03T00:00:00-05:00', 1],
      ['2024-03-04T00:00:00-05:00', 1],
      ['2024-03-05T00:00:00-05:00', 3],
    ]);
    const dates = await run(
      "select toDate(timestamp) as d, count() from events where timestamp >= '2024-03-05' group by d order by d",
    );
    expect(dates.results).toEqual([['2024-03-05', 3]]);
    expect(
      (await run("select timestamp from events where event = 'signup' order by timestamp")).results,
    ).toEqual([['2024-03-05T08:00:00.123000-05:00'], ['2024-03-05T20:00:00-05:00']]);
    expect((await run('select min(timestamp) from events', 'UTC')).results).toEqual([
      ['2024-03-04T03:00:00Z'],
    ]);
  });

  it('runs sub-queries, HAVING, ORDER BY, LIMIT and OFFSET', async () => {
    const result = await run(
      "select distinct_id, n from (select distinct_id, count() as n from events group by distinct_id) where distinct_id in (select distinct_id from events where event = 'signup' or distinct_id = 'x1') order by n desc, distinct_id limit 1 offset 1",
    );
    expect(result.results).toEqual([['u3', 1]]);
    const having = await run(
      'select distinct_id, count() as n from events group by distinct_id having n > 1 order by 1',
    );
    expect(having.results).toEqual([
      ['u1', 2],
      ['u2', 2],
    ]);
  });

  it('reports hasMore past the page and returns the page only', async () => {
    const compiled = await compileHogQL('select uuid from events order by uuid', { projectId: 7 });
    const result = await runHogQL(connection, { ...compiled, limit: 3 }, 'UTC');
    expect(result).toMatchObject({ hasMore: true, limit: 3 });
    expect(result.results).toHaveLength(3);
  });

  it('turns a query DuckDB refuses into a 400 and keeps quoting tricks inert', async () => {
    const error = await run('select event, count() from events').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(HogQLError);
    expect((error as HogQLError).toBody()).toMatchObject({
      type: 'validation_error',
      code: 'hogql_query_error',
    });
    const tricks = await run(
      "select count(), countIf(properties.`plan'); select 1 --` is null), countIf(event = 'x'' or ''1''=''1') from events",
    );
    expect(tricks.results).toEqual([[5, 5, 0]]);
  });

  it('calls the functions PostHog lets any case call in any case, and no other', async () => {
    const result = await run(
      "select COUNT(), Sum(JSONExtractInt(properties, 'amount')), MAX(event), Coalesce(null, 'x'), IF(1 = 1, 'y', 'n'), UPPER('a'), ifnull(null, 2), NOW() > '2024-01-01' from events",
    );
    expect(result.results).toEqual([[5, 42, 'signup', 'x', 'y', 'A', 2, true]]);
    for (const text of [
      'select tostartofday(timestamp) from events',
      'select TODATE(timestamp) from events',
      'select UNIQ(distinct_id) from events',
    ]) {
      const error = await run(text).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(HogQLError);
      expect((error as HogQLError).toBody().detail).toMatch(/^Function \w+ is not supported$/);
    }
  });

  it('types a property read Nullable(String), as PostHog does', async () => {
    const result = await run(
      'select properties.$browser, properties.plan as plan, person.properties.email, event, lower(event) from events limit 1',
    );
    expect(result.types).toEqual([
      ['$browser', 'Nullable(String)'],
      ['plan', 'Nullable(String)'],
      ['email', 'Nullable(String)'],
      ['event', 'String'],
      ['lower(event)', 'String'],
    ]);
  });
});
