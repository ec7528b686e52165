import type { GetQueryResultsCommandOutput, QueryExecution } from '@aws-sdk/client-athena';
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HogQLResult } from '../shared/query/execute';
import type { CompiledQuery } from '../shared/query/hogql/compile';
import { HogQLError } from '../shared/query/hogql/errors';
import { athenaValue, clickHouseTypeOfAthena } from './athena-values';
import { QueryTimeoutError } from './database';
import type { LakeFile } from './lake-files';
import { AthenaScanLimitError, QueryTooLargeError } from './lake-files';

/**
 * A compiled HogQL query (Trino dialect) run by Athena over the lake's Glue table, in the stack's
 * workgroup (its bytes-scanned limit, result location and encryption enforced there): start the
 * execution, poll it with backoff until it ends or the deadline passes (then stop it: a 504, nothing
 * left running), and page its results up to what the response returns.
 *
 * Athena's result reuse stays off: a reused result may predate lake files committed since, while a
 * response must count every event the lake holds when it is asked.
 */

export interface AthenaTarget {
  readonly workGroup: string;
  /** The Glue database and table of the lake (lib/lake.ts). */
  readonly database: string;
  readonly table: string;
  /** The files the query may read (`athenaPaths`); absent: every file of its partitions. */
  readonly paths?: readonly string[];
}

/**
 * Files one Athena query may name: their paths take about 100 bytes each of the query string, which
 * Athena caps at 256 KB.
 */
export const maxAthenaFiles = 1_000;

/** A query over more lake files than one Athena query can name: a 400, as a query past the budget. */
export class AthenaTooManyFilesError extends QueryTooLargeError {
  constructor(files: number) {
    super(
      `The query would read ${files} lake files, more than the ${maxAthenaFiles} one Athena query may name.`,
    );
  }
}

/**
 * The `"$path"` of each file the lake's listing rule admits (`lakeFilesOf`, the files the DuckDB path
 * reads): Athena reads every Parquet file under a partition, so during a compaction's grace period it
 * would read a compacted partition's merged flush files beside the compacted ones, every row twice.
 * Naming the files keeps it exact. Past `maxAthenaFiles` the query is refused (a 400): a partition
 * compacted daily holds a few files, so only a range of many uncompacted days reaches it.
 */
export function athenaPaths(bucket: string, files: readonly LakeFile[]): string[] {
  if (files.length > maxAthenaFiles) throw new AthenaTooManyFilesError(files.length);
  return files.map((file) => `s3://${bucket}/${file.key}`);
}

/** Rows one GetQueryResults call returns at most. */
const pageRows = 1000;
/** Polling: the first wait, the growth per poll and the longest wait. */
const poll = { firstMs: 100, factor: 1.5, maxMs: 1_000 } as const;

let sharedClient: AthenaClient | undefined;
const athena = (): AthenaClient => (sharedClient ??= new AthenaClient({}));

/** Athena's cancellation when the workgroup's bytes-scanned limit stops a query. */
const scanLimitReason = /bytes scanned limit/i;

/** The execution's end state, polled until it ends; stopped and a 504 once `deadline` passes. */
async function awaitExecution(id: string, deadline: number, timeoutMs: number): Promise<QueryExecution> {
  for (let wait: number = poll.firstMs; ; wait = Math.min(poll.maxMs, wait * poll.factor)) {
    const { QueryExecution: execution } = await athena().send(
      new GetQueryExecutionCommand({ QueryExecutionId: id }),
    );
    const state = execution?.Status?.State;
    if (state === 'SUCCEEDED' || state === 'FAILED' || state === 'CANCELLED') return execution!;
    if (Date.now() + wait >= deadline) {
      await athena().send(new StopQueryExecutionCommand({ QueryExecutionId: id }));
      throw new QueryTimeoutError(timeoutMs);
    }
    await sleep(wait);
  }
}

/** A failed or cancelled execution as the response's error: the query's own fault is a 400. */
function executionError(execution: QueryExecution): Error {
  const status = execution.Status;
  const reason = status?.AthenaError?.ErrorMessage ?? status?.StateChangeReason ?? 'no reason given';
  if (status?.State === 'CANCELLED' && scanLimitReason.test(reason)) return new AthenaScanLimitError();
  // Category 2 is the query's own error (a type mismatch, a bad conversion): PostHog's 400.
  if (status?.AthenaError?.ErrorCategory === 2)
    return new HogQLError('hogql_query_error', reason.split('\n')[0]!);
  return new Error(`Athena query ${execution.QueryExecutionId} ${status?.State}: ${reason}`);
}

/** The execution's rows after the header, up to `maxRows`, with the columns' Athena types. */
async function resultRows(
  id: string,
  maxRows: number,
): Promise<{ types: string[]; rows: (string | undefined)[][] }> {
  const rows: (string | undefined)[][] = [];
  let types: string[] = [];
  let token: string | undefined;
  let first = true;
  do {
    const page: GetQueryResultsCommandOutput = await athena().send(
      new GetQueryResultsCommand({ QueryExecutionId: id, NextToken: token, MaxResults: pageRows }),
    );
    if (first)
      types = (page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((column) => column.Type ?? '');
    // A SELECT's first row holds the column labels.
    const data = (page.ResultSet?.Rows ?? []).slice(first ? 1 : 0);
    for (const row of data) rows.push((row.Data ?? []).map((datum) => datum.VarCharValue));
    first = false;
    token = page.NextToken;
  } while (token !== undefined && rows.length < maxRows);
  return { types, rows: rows.slice(0, maxRows) };
}

/**
 * Runs `compiled` on Athena and answers the same `HogQLResult` the DuckDB path does, values and types
 * in the project's `timezone`. `timeoutMs` bounds the whole run, polling included.
 */
export async function runOnAthena(
  compiled: CompiledQuery,
  target: AthenaTarget,
  timezone: string,
  timeoutMs: number,
): Promise<HogQLResult> {
  const deadline = Date.now() + timeoutMs;
  const { QueryExecutionId: id } = await athena().send(
    new StartQueryExecutionCommand({
      QueryString: compiled.sql,
      WorkGroup: target.workGroup,
      QueryExecutionContext: { Catalog: 'AwsDataCatalog', Database: target.database },
    }),
  );
  if (id === undefined) throw new Error('Athena started no query execution');
  const execution = await awaitExecution(id, deadline, timeoutMs);
  if (execution.Status?.State !== 'SUCCEEDED') throw executionError(execution);
  const maxRows = compiled.paginated ? compiled.limit! + 1 : Number.MAX_SAFE_INTEGER;
  const { types, rows } = await resultRows(id, maxRows);
  const values = rows.map((row) =>
    compiled.columns.map((_, index) => athenaValue(row[index], types[index] ?? 'varchar', timezone)),
  );
  const hasMore = compiled.paginated ? values.length > compiled.limit! : null;
  return {
    columns: [...compiled.columns],
    types: compiled.columns.map((name, index) => [
      name,
      compiled.types[index] ?? clickHouseTypeOfAthena(types[index] ?? 'varchar', timezone),
    ]),
    results: hasMore ? values.slice(0, compiled.limit!) : values,
    hasMore,
    limit: compiled.limit,
    offset: compiled.offset,
  };
}
