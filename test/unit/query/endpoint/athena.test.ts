import type { QueryExecutionState } from '@aws-sdk/client-athena';
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import { AthenaTooManyFilesError, maxAthenaFiles, runOnAthena } from '../../../../functions/query/athena';
import { runPlan } from '../../../../functions/query/engine';
import { readableKeys } from '../../../../functions/shared/lake/listing';
import { queryConfig } from '../../../../functions/query/config';
import { QueryTimeoutError } from '../../../../functions/query/database';
import { AthenaScanLimitError } from '../../../../functions/query/lake-files';
import { planQuery } from '../../../../functions/query/plan';
import type { CompiledQuery } from '../../../../functions/shared/query/hogql/compile';
import { HogQLError } from '../../../../functions/shared/query/hogql/errors';
import { virtualTimers } from '../../../helpers/virtual-timers';

const athena = mockClient(AthenaClient);
beforeEach(() => athena.reset());

const target = { workGroup: 'FlockStateful-lake', database: 'flockstateful_lake', table: 'events' };
const paged: CompiledQuery = {
  sql: 'SELECT "event", count(*) AS "c" FROM x OFFSET 0 LIMIT 3',
  columns: ['event', 'c', 'at', 'price'],
  types: [null, null, null, null],
  paginated: true,
  limit: 2,
  offset: 0,
};

const row = (...values: (string | undefined)[]) => ({
  Data: values.map((value) => (value === undefined ? {} : { VarCharValue: value })),
});
const columnInfo = [
  { Name: 'event', Type: 'varchar' },
  { Name: 'c', Type: 'bigint' },
  { Name: 'at', Type: 'timestamp(3) with time zone' },
  { Name: 'price', Type: 'double' },
].map((column) => ({ ...column, CatalogName: 'hive', Label: column.Name, Nullable: 'UNKNOWN' as const }));

const state = (State: QueryExecutionState, extra: Record<string, unknown> = {}) => ({
  QueryExecution: { QueryExecutionId: 'q-1', Status: { State, ...extra } },
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('a HogQL query on Athena', () => {
  it('starts it in the workgroup and database, polls it to success, pages its rows and answers them typed', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena
      .on(GetQueryExecutionCommand)
      .resolvesOnce(state('QUEUED'))
      .resolvesOnce(state('RUNNING'))
      .resolves(state('SUCCEEDED'));
    athena
      .on(GetQueryResultsCommand)
      .resolvesOnce({
        ResultSet: {
          ResultSetMetadata: { ColumnInfo: columnInfo },
          Rows: [
            row('event', 'c', 'at', 'price'),
            row('$pageview', '12', '2026-11-02 10:30:00.123 Europe/Paris', 'NaN'),
          ],
        },
        NextToken: 'page-2',
      })
      .resolvesOnce({
        ResultSet: {
          ResultSetMetadata: { ColumnInfo: columnInfo },
          Rows: [
            row(undefined, '3', '2026-07-01 00:00:00.000 Europe/Paris', '2.5'),
            row('c', '1', undefined, '1'),
          ],
        },
      });
    const result = await runOnAthena(paged, target, 'Europe/Paris', 5_000);

    expect(athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input).toEqual({
      QueryString: paged.sql,
      WorkGroup: 'FlockStateful-lake',
      QueryExecutionContext: { Catalog: 'AwsDataCatalog', Database: 'flockstateful_lake' },
    });
    expect(athena.commandCalls(GetQueryExecutionCommand)).toHaveLength(3);
    expect(athena.commandCalls(GetQueryResultsCommand).map((call) => call.args[0].input)).toEqual([
      { QueryExecutionId: 'q-1', NextToken: undefined, MaxResults: 1000 },
      { QueryExecutionId: 'q-1', NextToken: 'page-2', MaxResults: 1000 },
    ]);
    expect(result).toEqual({
      columns: ['event', 'c', 'at', 'price'],
      types: [
        ['event', 'String'],
        ['c', 'Int64'],
        ['at', "DateTime64(6, 'Europe/Paris')"],
        ['price', 'Float64'],
      ],
      // The header row is not a result; the third row only says there is more.
      results: [
        ['$pageview', 12, '2026-11-02T10:30:00.123000+01:00', null],
        [null, 3, '2026-07-01T00:00:00+02:00', 2.5],
      ],
      hasMore: true,
      limit: 2,
      offset: 0,
    });
    expect(athena.commandCalls(StopQueryExecutionCommand)).toHaveLength(0);
  });

  it("answers a query's own error as PostHog's 400, anything else as a failure", async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena.on(GetQueryExecutionCommand).resolves(
      state('FAILED', {
        AthenaError: {
          ErrorCategory: 2,
          ErrorMessage: 'TYPE_MISMATCH: line 1:8: Cannot apply operator\nmore',
        },
      }),
    );
    const userError = await rejection(runOnAthena(paged, target, 'UTC', 5_000));
    expect(userError).toBeInstanceOf(HogQLError);
    expect((userError as HogQLError).detail).toBe('TYPE_MISMATCH: line 1:8: Cannot apply operator');

    athena
      .on(GetQueryExecutionCommand)
      .resolves(state('FAILED', { AthenaError: { ErrorCategory: 1, ErrorMessage: 'Internal error' } }));
    const systemError = await rejection(runOnAthena(paged, target, 'UTC', 5_000));
    expect(systemError).not.toBeInstanceOf(HogQLError);
    expect(String(systemError)).toMatch(/q-1 FAILED: Internal error/);
  });

  it("answers a query the workgroup's bytes-scanned limit cancelled as too large", async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena
      .on(GetQueryExecutionCommand)
      .resolves(
        state('CANCELLED', { StateChangeReason: 'Query cancelled! : Bytes scanned limit was exceeded' }),
      );
    const error = await rejection(runOnAthena(paged, target, 'UTC', 5_000));
    expect(error).toBeInstanceOf(AthenaScanLimitError);
    expect(error).toMatchObject({ statusCode: 400, code: 'query_too_large' });
  });

  it('stops a query still running at the deadline and answers 504, leaving nothing running', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena.on(GetQueryExecutionCommand).resolves(state('RUNNING'));
    athena.on(StopQueryExecutionCommand).resolves({});
    const timers = virtualTimers();
    const error = await rejection(runOnAthena(paged, target, 'UTC', 300)).finally(timers.restore);
    expect(error).toBeInstanceOf(QueryTimeoutError);
    // Polled with growing waits, none of them past the deadline: 300 ms of waiting at most.
    expect(timers.waits.length).toBeGreaterThan(1);
    expect(timers.waits.reduce((sum, wait) => sum + wait, 0)).toBeLessThanOrEqual(300);
    expect(athena.commandCalls(GetQueryExecutionCommand)).toHaveLength(timers.waits.length + 1);
    expect(athena.commandCalls(StopQueryExecutionCommand).map((call) => call.args[0].input)).toEqual([
      { QueryExecutionId: 'q-1' },
    ]);
    expect(athena.commandCalls(GetQueryResultsCommand)).toHaveLength(0);
  });

  it('reads every page of an explicit LIMIT, and only as many pages as a paginated query needs', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena.on(GetQueryExecutionCommand).resolves(state('SUCCEEDED'));
    const page = (first: boolean, token?: string) => ({
      ResultSet: {
        ResultSetMetadata: { ColumnInfo: [columnInfo[1]!] },
        Rows: [...(first ? [row('c')] : []), row('1'), row('2')],
      },
      NextToken: token,
    });
    athena
      .on(GetQueryResultsCommand)
      .resolvesOnce(page(true, 't2'))
      .resolvesOnce(page(false, 't3'))
      .resolves(page(false));
    const limited: CompiledQuery = {
      sql: 'SELECT 1 LIMIT 6',
      columns: ['c'],
      types: [null],
      paginated: false,
      limit: null,
      offset: null,
    };
    const all = await runOnAthena(limited, target, 'UTC', 5_000);
    expect(all.results).toEqual([[1], [2], [1], [2], [1], [2]]);
    expect(all.hasMore).toBeNull();
    expect(athena.commandCalls(GetQueryResultsCommand)).toHaveLength(3);
  });

  it("plans a HogQL query for Athena in Trino's SQL over the project's partitions, in PostHog's response", async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena.on(GetQueryExecutionCommand).resolves(state('SUCCEEDED'));
    athena.on(GetQueryResultsCommand).resolves({
      ResultSet: { ResultSetMetadata: { ColumnInfo: [columnInfo[1]!] }, Rows: [row('c'), row('42')] },
    });
    const text = "select count() as c from events where event = '$pageview'";
    const plan = await planQuery(
      { kind: 'HogQLQuery', query: text },
      { projectId: 7, timezone: 'Europe/Paris', now: new Date(), personsOf: async () => new Map() },
    );
    const response = await plan.athena!(target, 5_000);
    const sql = athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString!;
    expect(sql).toContain('FROM "flockstateful_lake"."events" WHERE "project_id" = 7)');
    expect(sql).toContain(`AT TIME ZONE 'Europe/Paris'`);
    expect(response).toMatchObject({ columns: ['c'], results: [[42]], query: text, clickhouse: null });
  });
});

describe('a HogQL query bounded on timestamp', () => {
  it('lists, and scans on Athena, only the partitions of its bounds', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-2' });
    athena.on(GetQueryExecutionCommand).resolves(state('SUCCEEDED'));
    athena.on(GetQueryResultsCommand).resolves({
      ResultSet: { ResultSetMetadata: { ColumnInfo: [columnInfo[1]!] }, Rows: [row('c'), row('1')] },
    });
    const text =
      "select count() as c from events where timestamp >= '2024-03-05' and timestamp < '2024-03-06'";
    const plan = await planQuery(
      { kind: 'HogQLQuery', query: text },
      { projectId: 7, timezone: 'America/Los_Angeles', now: new Date(), personsOf: async () => new Map() },
    );
    expect([plan.dates?.[0], plan.dates?.at(-1), plan.dates?.length]).toEqual([
      '2024-03-03',
      '2024-03-08',
      6,
    ]);
    await plan.athena!(target, 5_000);
    const sql = athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString!;
    expect(sql).toContain(`WHERE "project_id" = 7 AND "date" BETWEEN '2024-03-03' AND '2024-03-08')`);
  });
});

describe('Athena during a compaction’s grace period', () => {
  const settings = { lakeBucket: 'lake', maxLakeBytes: 1, engine: 'athena' as const, athena: target };
  const context = { projectId: 7, timezone: 'UTC', now: new Date(), personsOf: async () => new Map() };
  const file = (key: string) => ({ key: `events/project_id=7/date=2026-11-02/${key}`, size: 10, etag: key });

  it('reads only the files the listing rule admits, never a merged flush file beside its compacted one', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena.on(GetQueryExecutionCommand).resolves(state('SUCCEEDED'));
    athena.on(GetQueryResultsCommand).resolves({
      ResultSet: { ResultSetMetadata: { ColumnInfo: [columnInfo[1]!] }, Rows: [row('c'), row('3')] },
    });
    // A compacted partition in its grace period: the listing rule keeps the compacted file and the
    // flush file after the cutoff; the merged flush files are still in the bucket.
    const keys = [
      '20261102T100000Z-aaaaaaaaaaaa.parquet',
      '_compacted-20261103T001600Z-ab12.json',
      'c-20261103T001600Z-ab12-0.parquet',
      '20261103T020000Z-bbbbbbbbbbbb.parquet',
    ].map((name) => `events/project_id=7/date=2026-11-02/${name}`);
    const files = readableKeys(keys).map((key) => file(key.slice(key.lastIndexOf('/') + 1)));
    const plan = await planQuery({ kind: 'HogQLQuery', query: 'select count() as c from events' }, context);

    await runPlan(plan, context, settings, files);

    const sql = athena.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input.QueryString!;
    expect(sql).toContain(
      `WHERE "project_id" = 7 AND "$path" IN (` +
        `'s3://lake/events/project_id=7/date=2026-11-02/c-20261103T001600Z-ab12-0.parquet', ` +
        `'s3://lake/events/project_id=7/date=2026-11-02/20261103T020000Z-bbbbbbbbbbbb.parquet')`,
    );
    expect(sql).not.toContain('20261102T100000Z-aaaaaaaaaaaa');
  });

  it(`refuses a query over more than ${maxAthenaFiles} files with a 400 before starting it`, async () => {
    const files = Array.from({ length: maxAthenaFiles + 1 }, (_, index) => file(`f-${index}.parquet`));
    const plan = await planQuery({ kind: 'HogQLQuery', query: 'select count() from events' }, context);

    const error = await rejection(runPlan(plan, context, settings, files));

    expect(error).toBeInstanceOf(AthenaTooManyFilesError);
    expect(error).toMatchObject({ statusCode: 400, code: 'query_too_large', attr: 'query' });
    expect(athena.commandCalls(StartQueryExecutionCommand)).toHaveLength(0);
  });
});

describe("the query function's engine settings", () => {
  const env = {
    SINGLE_TABLE_NAME: 't',
    LAKE_BUCKET_NAME: 'lake',
    FLOCK_QUERY_RUNS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/runs',
  };
  it('runs DuckDB unless told otherwise, and needs the workgroup and database for Athena', () => {
    expect(queryConfig(env)).toMatchObject({ engine: 'duckdb' });
    expect(queryConfig(env).athena).toBeUndefined();
    expect(() => queryConfig({ ...env, FLOCK_QUERY_ENGINE: 'auto' })).toThrow(/needs FLOCK_ATHENA_WORKGROUP/);
    expect(() => queryConfig({ ...env, FLOCK_QUERY_ENGINE: 'presto' })).toThrow(/FLOCK_QUERY_ENGINE/);
    expect(
      queryConfig({
        ...env,
        FLOCK_QUERY_ENGINE: 'auto',
        FLOCK_ATHENA_WORKGROUP: 'wg',
        FLOCK_LAKE_DATABASE: 'db',
      }),
    ).toMatchObject({ engine: 'auto', athena: { workGroup: 'wg', database: 'db', table: 'events' } });
  });
});
