import { writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lakeDatabase, parquetOf } from '../../../functions/lake/parquet';
import { lakeDateOf, lakeFileKey } from '../../../functions/shared/lake/layout';
import type { LakeEvent } from '../../../functions/shared/lake/row';
import { propertiesSql } from '../../../functions/shared/lake/properties';
import { lakeRowOf, lakeRowsOf } from '../../../functions/shared/lake/row';
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

const quoted = (name: string): string => `"${name}"`;

async function readBack(
  file: Buffer,
): Promise<{ rows: Record<string, unknown>[]; metadata: string; types: Record<string, unknown>[] }> {
  const path = join(tmpdir(), `lake-test-${process.pid}-${Date.now()}.parquet`);
  writeFileSync(path, file);
  try {
    const { connection } = await lakeDatabase();
    const rows = (
      await connection.runAndReadAll(
        `SELECT *, ${propertiesSql(quoted)} AS restored FROM read_parquet('${path}')`,
      )
    ).getRowObjectsJson();
    const types = (
      await connection.runAndReadAll(
        `SELECT name, type::VARCHAR AS type, logical_type::VARCHAR AS logical FROM parquet_schema('${path}') ` +
          `WHERE name IN ('uuid', 'session_id', 'window_id') ORDER BY name`,
      )
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
    return { rows, metadata: metadata[0]?.value as string, types };
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
      [...lakeColumns.map((column) => column.name), 'restored'],
      [...lakeColumns.map((column) => column.name), 'restored'],
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
      // Not UUIDs: their column is null, the values stay in the JSON.
      session_id: null,
      window_id: null,
      group_0: '42',
      group_1: null,
      group_2: 'acme',
      mat_current_url: 'https://example.com/a?b=1',
      mat_browser: 'Firefox',
      mat_os: 'Linux',
      mat_device_type: null,
    });
    // What the columns hold exactly is left out of the JSON; the reader's SQL puts it back.
    const { $current_url, $browser, $os, ...stored } = event().properties;
    expect([$current_url, $browser, $os]).toEqual(['https://example.com/a?b=1', 'Firefox', 'Linux']);
    expect(JSON.parse(read[1]!.properties as string)).toEqual(stored);
    expect(JSON.parse(read[1]!.restored as string)).toEqual(event().properties);
  });

  it('stores UUIDs in 16 bytes and a property once, and reads every property back as it was sent', async () => {
    const session = '0190a1b2-0000-7000-8000-0000000000aa';
    const properties: Record<string, unknown> = {
      $session_id: session,
      $window_id: '0190A1B2-0000-7000-8000-0000000000BB',
      $browser: 131,
      $os: null,
      $pathname: '/x',
      $host: { nested: [1, null, 'two'] },
      plan: 'pro',
    };
    Object.defineProperty(properties, '__proto__', { value: { polluted: true }, enumerable: true });
    const row = lakeRowOf(event({ properties }), {}, new Date('2024-03-05T10:12:00.000Z'));
    const { rows: read, types } = await readBack(await parquetOf([row]));
    expect(types).toEqual(
      ['session_id', 'uuid', 'window_id'].map((name) => ({
        name,
        type: 'FIXED_LEN_BYTE_ARRAY',
        logical: expect.stringContaining('UUID') as unknown,
      })),
    );
    expect(read[0]).toMatchObject({
      uuid: '0190a1b2-0000-7000-8000-000000000001',
      session_id: session,
      // Upper case is not the canonical form: kept in the JSON as sent.
      window_id: null,
      mat_browser: '131',
      mat_os: null,
      mat_pathname: '/x',
      mat_host: '{"nested":[1,null,"two"]}',
    });
    const stored = JSON.parse(read[0]!.properties as string) as Record<string, unknown>;
    expect(Object.keys(stored)).toEqual(['$window_id', '$browser', '$os', '$host', 'plan', '__proto__']);
    const restored = JSON.parse(read[0]!.restored as string) as Record<string, unknown>;
    expect(Object.keys(restored).sort()).toEqual(Object.keys(properties).sort());
    for (const key of Object.keys(properties)) expect([key, restored[key]]).toEqual([key, properties[key]]);
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

  it('writes the rows a generator yields (the writer builds each as the file takes it) as an array of them', async () => {
    // Arrange: three events of two dates
    const insertedAt = new Date('2024-03-05T10:12:00.000Z');
    const events = [1, 2, 3].map((n) =>
      event({ uuid: `0190a1b2-0000-7000-8000-00000000000${n}`, timestamp: `2024-03-0${n}T10:11:12.345Z` }),
    );

    // Act: the flush's generator, and the rows built beforehand
    const streamed = await readBack(await parquetOf(lakeRowsOf(events, {}, insertedAt)));
    const built = await readBack(await parquetOf(events.map((one) => lakeRowOf(one, {}, insertedAt))));

    // Assess: the same file content, every event in it
    expect(streamed.rows).toEqual(built.rows);
    expect(streamed.rows.map((row) => row.uuid)).toEqual(events.map((one) => one.uuid));
  });

  it('places a file under its project and UTC date', () => {
    expect(lakeDateOf('2024-03-05T23:59:59.999-02:00')).toBe('2024-03-06');
    expect(lakeDateOf('2024-03-05T23:59:59.999Z')).toBe('2024-03-05');
    expect(lakeDateOf('2024-02-29T12:00:00.000Z')).toBe('2024-02-29');
    // Date.parse's reading of a day the month does not have.
    expect(lakeDateOf('2023-02-29T12:00:00.000Z')).toBe('2023-03-01');
    expect(lakeFileKey(7, '2024-03-06', 'f1')).toBe('events/project_id=7/date=2024-03-06/f1.parquet');
  });
});
