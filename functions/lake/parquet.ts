import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LakeValue } from '../shared/lake/row';
import { duckDbType, lakeColumns, lakeSchemaVersion, schemaVersionKey } from '../shared/lake/schema';

/**
 * Parquet files of lake rows, written by DuckDB (an in-memory database per container, loaded on the
 * first write): the rows go in through an appender, out through `COPY … (FORMAT parquet, COMPRESSION
 * zstd)` sorted by time, into a temporary file that is read back as the object's body.
 */

let database: Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> | undefined;

/** The container's DuckDB, loaded once (the native module's load is the writer's cold start). */
export function lakeDatabase(): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  database ??= (async () => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    return { instance, connection: await instance.connect() };
  })();
  return database;
}

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

const columnList = lakeColumns
  .map((column) => `${quoted(column.name)} ${duckDbType(column.type)}`)
  .join(', ');

/**
 * A Parquet file (zstd) holding `rows`, each one value per column of `lakeColumns`, sorted by time.
 * The rows are appended as `rows` yields them: a generator can build each as it goes.
 */
export async function parquetOf(rows: Iterable<readonly LakeValue[]>): Promise<Buffer> {
  const { timestampValue } = await import('@duckdb/node-api');
  const { connection } = await lakeDatabase();
  const id = randomBytes(8).toString('hex');
  const table = `rows_${id}`;
  const file = join(tmpdir(), `flock-lake-${id}.parquet`);
  await connection.run(`CREATE TABLE ${table} (${columnList})`);
  try {
    const appender = await connection.createAppender(table);
    for (const row of rows) {
      lakeColumns.forEach((column, index) => {
        const value = row[index];
        if (value === null || value === undefined) appender.appendNull();
        else if (column.type === 'timestamp') appender.appendTimestamp(timestampValue(value as bigint));
        else appender.appendVarchar(value as string);
      });
      appender.endRow();
    }
    appender.closeSync();
    await connection.run(
      `COPY (SELECT * FROM ${table} ORDER BY "timestamp", uuid) TO '${file}' ` +
        `(FORMAT parquet, COMPRESSION zstd, KV_METADATA {${schemaVersionKey}: '${lakeSchemaVersion}'})`,
    );
    return await readFile(file);
  } finally {
    await connection.run(`DROP TABLE IF EXISTS ${table}`);
    await rm(file, { force: true });
  }
}
