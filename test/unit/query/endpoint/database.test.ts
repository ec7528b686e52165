import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetOf } from '../../../../functions/lake/parquet';
import { QueryTimeoutError, withLakeDatabase, withTimeout } from '../../../../functions/query/database';
import { lakeFileKey } from '../../../../functions/shared/lake/layout';
import { lakeRowOf } from '../../../../functions/shared/lake/row';

let root: string;
let outside: string;
let file: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'flock-query-db-'));
  outside = await mkdtemp(join(tmpdir(), 'flock-query-outside-'));
  file = join(root, lakeFileKey(7, '2024-03-04', 'a'));
  await mkdir(join(file, '..'), { recursive: true });
  const row = lakeRowOf(
    {
      uuid: '0190a1b2-0000-7000-8000-000000000001',
      event: '$pageview',
      distinct_id: 'u1',
      timestamp: '2024-03-04T10:00:00.000Z',
      created_at: '2024-03-04T10:00:00.000Z',
      properties: {},
      elements_chain: '',
    },
    {},
    new Date(),
  );
  await writeFile(file, await parquetOf([row]));
  await writeFile(join(outside, 'secret.csv'), 'secret\n42\n');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const attempt = (sql: string) =>
  withLakeDatabase(root, [file], 'America/New_York', async (connection) =>
    (await connection.runAndReadAll(sql)).getRows(),
  ).then(
    (rows) => ({ rows }),
    (error: Error) => ({ error: error.message.split('\n')[0] }),
  );

describe("a query's locked DuckDB", () => {
  it('reads the events relation over the given files, with its partitions, in the project timezone', async () => {
    expect(await attempt("SELECT event, project_id, current_setting('TimeZone') FROM events")).toEqual({
      rows: [['$pageview', 7n, 'America/New_York']],
    });
  });

  it('reaches no file outside its directory, whatever SQL it is given', async () => {
    for (const sql of [
      `SELECT * FROM read_csv('${join(outside, 'secret.csv')}')`,
      "SELECT * FROM read_csv('/etc/passwd')",
      `COPY (SELECT 1) TO '${join(outside, 'out.csv')}'`,
      `ATTACH '${join(outside, 'x.db')}'`,
    ])
      expect({ sql, ...(await attempt(sql)) }).toEqual({
        sql,
        error: expect.stringMatching(/Permission Error|disabled/),
      });
  });

  it('has its configuration locked: access, extensions and limits cannot be changed', async () => {
    for (const sql of [
      'SET enable_external_access = true',
      "SET allowed_directories = ['/']",
      "SET memory_limit = '100GB'",
      'SET threads = 64',
      'SET lock_configuration = false',
      'SET autoinstall_known_extensions = true',
    ])
      expect({ sql, ...(await attempt(sql)) }).toEqual({
        sql,
        error: expect.stringContaining('the configuration has been locked'),
      });
    expect(await attempt('INSTALL httpfs')).toEqual({
      error: expect.stringMatching(/Permission Error|disabled/),
    });
  });

  it('is interrupted past its time budget: a 504 naming the budget', async () => {
    let interrupts = 0;
    const run = withLakeDatabase(root, [file], 'UTC', (connection) => {
      const interrupt = connection.interrupt.bind(connection);
      connection.interrupt = () => {
        interrupts++;
        interrupt();
      };
      return withTimeout(connection, 300, () => connection.run('SELECT count(*) FROM range(100000000000) a'));
    });
    await expect(run).rejects.toBeInstanceOf(QueryTimeoutError);
    await expect(run).rejects.toMatchObject({ statusCode: 504, expose: true });
    // The query was stopped in DuckDB, not left running behind the answer.
    expect(interrupts).toBe(1);
  });
});
