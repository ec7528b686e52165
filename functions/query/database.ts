import type { DuckDBConnection } from '@duckdb/node-api';
import { HttpError } from '../shared/http/errors';
import { duckDbType, lakeColumns } from '../shared/lake/schema';
import { useTimezone } from '../shared/query/execute';
import { identifier, stringLiteral } from '../shared/query/hogql/sql';
import { queryBudget } from './settings';

/**
 * One query's DuckDB: a fresh in-memory database whose `events` relation reads exactly the files the
 * function downloaded, then locked before any of the query's SQL runs: no file, URL or S3 access
 * outside the files' directory, no extension installed or loaded, no setting changeable (the lock
 * cannot be lifted), bounded memory and threads. The database is closed after the query: nothing of
 * one request outlives it.
 */

/** The lake's columns and its Hive partitions: the relation when the project has no file yet. */
const emptyEvents = `CREATE TABLE events (${[
  ...lakeColumns.map((column) => `${identifier(column.name)} ${duckDbType(column.type)}`),
  'project_id BIGINT',
  'date DATE',
].join(', ')})`;

/** The query's text took longer than its budget: PostHog's 504 for a query past its execution time. */
export class QueryTimeoutError extends HttpError {
  constructor(timeoutMs: number) {
    super(
      504,
      'server_error',
      'timeout',
      `Query has hit the max execution time (${timeoutMs / 1000} s) before completing. ` +
        'Narrow its date range or simplify it.',
    );
    // The detail is chosen for the client, unlike an unexpected 5xx.
    (this as { expose: boolean }).expose = true;
  }
}

/**
 * Opens the locked database over `paths` (local Parquet files under `dir`), in the project's
 * `timezone` (DuckDB's session timezone, set before the lock), and runs `fn` on it.
 */
export async function withLakeDatabase<T>(
  dir: string,
  paths: readonly string[],
  timezone: string,
  fn: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(queryBudget.threads),
    memory_limit: queryBudget.memoryLimit,
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
  });
  const connection = await instance.connect();
  try {
    await connection.run(
      paths.length === 0
        ? emptyEvents
        : `CREATE VIEW events AS SELECT * FROM read_parquet([${paths.map(stringLiteral).join(', ')}], ` +
            'hive_partitioning = true, union_by_name = true)',
    );
    await useTimezone(connection, timezone);
    await lock(connection, dir);
    return await fn(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Locks the database: only `dir` readable, no extension, no setting changeable from then on. */
async function lock(connection: DuckDBConnection, dir: string): Promise<void> {
  const directory = dir.endsWith('/') ? dir : `${dir}/`;
  await connection.run(`SET allowed_directories = [${stringLiteral(directory)}]`);
  await connection.run('SET enable_external_access = false');
  await connection.run('SET lock_configuration = true');
}

/**
 * Runs `work` on `connection`, interrupting DuckDB when it takes longer than `timeoutMs`: the
 * query fails with a 504 and the function is free again.
 */
export async function withTimeout<T>(
  connection: DuckDBConnection,
  timeoutMs: number,
  work: () => Promise<T>,
): Promise<T> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    connection.interrupt();
  }, timeoutMs);
  try {
    return await work();
  } catch (error) {
    if (timedOut) throw new QueryTimeoutError(timeoutMs);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
