import { writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lakeDatabase, parquetOf } from '../../../functions/lake/parquet';
import { lakeDateOf, lakeFileKey } from '../../../functions/shared/lake/layout';
import type { LakeEvent } from '../../../functions/shared/lake/row';
import { lakeRowOf } from '../../../functions/shared/lake/row';
import { lakeColumns, lakeSchemaVersion, schemaVersionKey } from '../../../functions/shared/lake/schema';

const event = (overrides: Partial<LakeEvent> = {}): LakeEvent => ({
  uuid: '0190a1b2-0000-7000-8000-000000000001',
  event: '$pageview',
  distinct_id: 'user-1',
  timestamp: '2024-03-05T10:11:12.345Z',
  created_at: '2024-03-05T10:11:13.000Z',
  properties: {
    $current_url: 'https://example.com/a?b=1',
    $browser: 'Firefox',
    $os: 'Linux',
    $session_id: 'session-1',
    $window_id: 'window-1',
    $groups: { company: 'acme', project: 42 },
    plan: 'pro',
  },
  elements_chain: 'a:href="/x"',
  ...overrides,
});

async function readBack(file: Buffer): Promise<{ rows: Record<string, unknown>[]; metadata: string }> {
  const path = join(tmpdir(), `lake-test-${process.pid}-${Date.now()}.parquet`);
  writeFileSync(path, file);
  try {
    const { connection } = await lakeDatabase();
    const rows = (
      await connection.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)
    ).getRowObjectsJson();
    const metadata = (
      await connection.runAndReadAll(
        `SELECT value::VARCHAR AS value FROM parquet_kv_metadata('${path}') WHERE key::VARCHAR = '${schemaVersionKey}'`,
      )
    ).getRowObjectsJson();
    const codecs = (
      await connection.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${path}')`)
    ).getRowObjectsJson();
    expect(codecs).toEqual([{ compression: 'ZSTD' }]);
    return { rows, metadata: metadata[0]?.value as string };
  } finally {
    await rm(path, { force: true });
  }
}

describe('lake Parquet files', () => {
  it('hold one typed row per event with the materialised columns, groups and the schema version', async () => {
    const insertedAt = new Date('2024-03-05T10:12:00.000Z');
    const rows = [
      lakeRowOf(event(), { '0': 'project', '2': 'company' }, insertedAt),
      lakeRowOf(
        event({
          uuid: '0190a1b2-0000-7000-8000-000000000002',
          timestamp: '2024-03-05T09:00:00.000Z',
          properties: {},
        }),
        {},
        insertedAt,
      ),
    ];
    const { rows: read, metadata } = await readBack(await parquetOf(rows));
    expect(metadata).toBe(String(lakeSchemaVersion));
    expect(read.map((row) => Object.keys(row))).toEqual([
      lakeColumns.map((column) => column.name),
      lakeColumns.map((column) => column.name),
    ]);
    // Sorted by time: the earlier event first.
    expect(read[0]).toMatchObject({
      uuid: '0190a1b2-0000-7000-8000-000000000002',
      timestamp: '2024-03-05 09:00:00',
      properties: '{}',
      mat_browser: null,
      group_0: null,
    });
    expect(read[1]).toMatchObject({
      uuid: '0190a1b2-0000-7000-8000-000000000001',
      event: '$pageview',
      distinct_id: 'user-1',
      person_id: null,
      timestamp: '2024-03-05 10:11:12.345',
      inserted_at: '2024-03-05 10:12:00',
      created_at: '2024-03-05 10:11:13',
      elements_chain: 'a:href="/x"',
      session_id: 'session-1',
      window_id: 'window-1',
      group_0: '42',
      group_1: null,
      group_2: 'acme',
      mat_current_url: 'https://example.com/a?b=1',
      mat_browser: 'Firefox',
      mat_os: 'Linux',
      mat_device_type: null,
    });
    expect(JSON.parse(read[1]!.properties as string)).toEqual(event().properties);
  });

  it('reads group keys and materialised properties from own properties only', async () => {
    const properties = Object.create({ $browser: 'inherited' }) as Record<string, unknown>;
    properties.$groups = Object.create({ company: 'inherited' }) as Record<string, unknown>;
    const row = lakeRowOf(event({ properties }), { '0': 'company', '1': 'toString' }, new Date());
    const value = (name: string) => row[lakeColumns.findIndex((column) => column.name === name)];
    expect(value('mat_browser')).toBeNull();
    expect(value('group_0')).toBeNull();
    expect(value('group_1')).toBeNull();
  });

  it('places a file under its project and UTC date', () => {
    expect(lakeDateOf('2024-03-05T23:59:59.999-02:00')).toBe('2024-03-06');
    expect(lakeFileKey(7, '2024-03-06', 'f1')).toBe('events/project_id=7/date=2024-03-06/f1.parquet');
  });
});
