import type { DuckDBConnection } from '@duckdb/node-api';
import type { CompiledQuery } from './hogql/compile';
import { HogQLError } from './hogql/errors';
import { stringLiteral } from './hogql/sql';
import { clickHouseType, jsonValue } from './values';

/** What a HogQL query answers, PostHog's `HogQLQueryResponse` fields (posthog/schema.py). */
export interface HogQLResult {
  readonly columns: string[];
  /** `[column, ClickHouse type]` pairs. */
  readonly types: [string, string][];
  readonly results: unknown[][];
  readonly hasMore: boolean | null;
  readonly limit: number | null;
  readonly offset: number | null;
}

/** DuckDB errors a query's own text causes: a 400 with DuckDB's message; anything else stays a 5xx. */
const queryErrors = /^(Binder|Conversion|Invalid Input|Out of Range|Not implemented) Error: /;

/**
 * Sets DuckDB's session timezone to `timezone` unless it is already: a locked database (the query
 * function's, whose configuration cannot change once the query's files are attached) was opened in it.
 */
export async function useTimezone(connection: DuckDBConnection, timezone: string): Promise<void> {
  const current = await connection.runAndReadAll("SELECT current_setting('TimeZone')");
  if (current.getRows()[0]?.[0] !== timezone)
    await connection.run(`SET TimeZone = ${stringLiteral(timezone)}`);
}

/**
 * Runs a compiled query on `connection`, whose `events` relation the caller made over the project's
 * Parquet files, in the project's `timezone` (IANA name): DuckDB's session timezone, so that day,
 * week and month boundaries, `now()` and datetime strings are the project's.
 */
export async function runHogQL(
  connection: DuckDBConnection,
  compiled: CompiledQuery,
  timezone: string,
): Promise<HogQLResult> {
  await useTimezone(connection, timezone);
  const reader = await connection.runAndReadAll(compiled.sql).catch((error: unknown) => {
    // The native module's errors may come from another realm: read `message`, not `instanceof Error`.
    const message = String((error as { message?: unknown } | null)?.message ?? error);
    if (queryErrors.test(message)) throw new HogQLError('hogql_query_error', message.split('\n')[0]!);
    throw error;
  });
  const types = reader.columnTypes();
  const rows = reader.getRows().map((row) => row.map((value) => jsonValue(value, timezone)));
  const hasMore = compiled.paginated ? rows.length > compiled.limit! : null;
  return {
    columns: [...compiled.columns],
    types: compiled.columns.map((name, index) => [
      name,
      compiled.types[index] ?? clickHouseType(types[index]!, timezone),
    ]),
    results: hasMore ? rows.slice(0, compiled.limit!) : rows,
    hasMore,
    limit: compiled.limit,
    offset: compiled.offset,
  };
}
