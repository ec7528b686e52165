import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parquetOf } from '../../../../functions/lake/parquet';
import { lakeDateOf, lakeFileKey } from '../../../../functions/shared/lake/layout';
import { type LakeEvent, lakeRowOf } from '../../../../functions/shared/lake/row';

/** An event of the fixture: who, when (UTC ISO), what. */
export interface FixtureEvent {
  readonly project: number;
  readonly event: string;
  readonly distinctId: string;
  readonly personId: string | null;
  readonly timestamp: string;
  readonly properties?: Record<string, unknown>;
  readonly personProperties?: Record<string, unknown>;
}

export interface Lake {
  readonly connection: DuckDBConnection;
  close(): Promise<void>;
}

let sequence = 0;

function lakeEvent(item: FixtureEvent): LakeEvent {
  return {
    uuid: `0190a1b2-0000-7000-8000-${String(++sequence).padStart(12, '0')}`,
    event: item.event,
    distinct_id: item.distinctId,
    timestamp: item.timestamp,
    created_at: item.timestamp,
    properties: item.properties ?? {},
    elements_chain: '',
    person_id: item.personId,
    person_properties: item.personProperties ?? null,
  };
}

/**
 * Parquet files of `events` in a temporary lake (one file per project-day, as the writer lays them
 * out), and a DuckDB connection with the `events` relation over them, as the query function makes it.
 */
export async function lakeOf(events: readonly FixtureEvent[]): Promise<Lake> {
  const root = await mkdtemp(join(tmpdir(), 'flock-insights-'));
  const files = new Map<string, LakeEvent[]>();
  for (const item of events) {
    const key = lakeFileKey(item.project, lakeDateOf(item.timestamp), 'fixture');
    files.set(key, [...(files.get(key) ?? []), lakeEvent(item)]);
  }
  for (const [key, rows] of files) {
    await mkdir(dirname(join(root, key)), { recursive: true });
    await writeFile(
      join(root, key),
      await parquetOf(rows.map((row) => lakeRowOf(row, {}, new Date(row.timestamp)))),
    );
  }
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance: DuckDBInstance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  await connection.run(
    `CREATE VIEW events AS SELECT * FROM read_parquet('${root}/events/*/*/*.parquet', hive_partitioning = true)`,
  );
  return {
    connection,
    async close() {
      connection.closeSync();
      instance.closeSync();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The local date (`YYYY-MM-DD`) of an instant in `timezone`, computed by Intl, not by the code under test. */
export function localDate(instant: string | number, timezone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(instant));
}
