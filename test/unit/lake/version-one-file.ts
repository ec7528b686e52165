import { lakeDatabase } from '../../../functions/lake/parquet';
import type { LakeEvent } from '../../../functions/shared/lake/row';
import { lakeRowOf } from '../../../functions/shared/lake/row';
import { lakeColumns } from '../../../functions/shared/lake/schema';

const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/**
 * Writes `events` into a Parquet file at `path` as lake schema version 1 did: every column text but
 * the timestamps (UUIDs as text, `$session_id` as sent), every property in the `properties` JSON.
 */
export async function writeVersionOneFile(path: string, events: readonly LakeEvent[]): Promise<void> {
  const { connection } = await lakeDatabase();
  const rows = events.map((event) => {
    const row = lakeRowOf(event, {}, new Date(event.timestamp));
    return lakeColumns.map((column, index) => {
      const value = column.name === 'properties' ? JSON.stringify(event.properties) : row[index];
      const sql =
        value === null || value === undefined
          ? 'NULL'
          : column.type === 'timestamp'
            ? `make_timestamp(${String(value)})`
            : literal(String(value));
      return `${sql}::${column.type === 'timestamp' ? 'TIMESTAMP' : 'VARCHAR'} AS "${column.name}"`;
    });
  });
  const select = rows.map((columns) => `SELECT ${columns.join(', ')}`).join(' UNION ALL ');
  await connection.run(`COPY (${select}) TO ${literal(path)} (FORMAT parquet, COMPRESSION zstd)`);
}
