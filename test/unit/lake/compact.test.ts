import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DirectoryLakeStore } from '../../../bench/support/directory-lake-store';
import { directoryLakeStore } from '../../../bench/support/directory-lake-store';
import type { CompactionSettings } from '../../../functions/lake/compact';
import { compactLake, compactPartition } from '../../../functions/lake/compact';
import { lakeDatabase, parquetOf } from '../../../functions/lake/parquet';
import type { LakeStore } from '../../../functions/lake/store';
import { lakeFileMerged } from '../../../functions/lake/written';
import { lakeFileKey, lakePartitionPrefix } from '../../../functions/shared/lake/layout';
import { lakeFilesToRead, lakeTimeName } from '../../../functions/shared/lake/listing';
import { propertiesSql } from '../../../functions/shared/lake/properties';
import type { LakeEvent } from '../../../functions/shared/lake/row';
import { lakeRowOf } from '../../../functions/shared/lake/row';
import { lakeSchemaVersion, schemaVersionKey } from '../../../functions/shared/lake/schema';
import { writeVersionOneFile } from './version-one-file';

/**
 * Compaction over a lake in a directory, read back with DuckDB through the listing rule
 * (functions/shared/lake/listing.ts): every row once before, during (a reader checks before each of
 * the compaction's writes and deletes), after, and after a compaction stopped at each of its steps.
 */

const projectId = 7;
const date = '2024-03-05';
const partition = lakePartitionPrefix(projectId, date);
const afterTheDay = new Date('2024-03-07T00:00:00Z');
const minute = 60_000;

let roots: string[] = [];

async function freshStore(): Promise<DirectoryLakeStore> {
  const root = await mkdtemp(join(tmpdir(), 'flock-compact-test-'));
  roots.push(root);
  return directoryLakeStore(root);
}

afterEach(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
  roots = [];
});

/** Writes `files` flush files of `perFile` events each into the partition; returns the uuids. */
async function writeFlushFiles(store: LakeStore, files: number, perFile: number): Promise<string[]> {
  const uuids: string[] = [];
  for (let file = 0; file < files; file++) {
    const flushedAt = new Date(Date.parse(`${date}T01:00:00Z`) + file * 5 * minute);
    const rows = Array.from({ length: perFile }, (_, index) => {
      const uuid = `0190a1b2-0000-7000-8000-${String(file * 1000 + index).padStart(12, '0')}`;
      uuids.push(uuid);
      return lakeRowOf(
        {
          uuid,
          event: '$pageview',
          distinct_id: `user-${index % 7}`,
          timestamp: new Date(flushedAt.getTime() - index * 1000).toISOString(),
          created_at: flushedAt.toISOString(),
          properties: { $browser: 'Firefox', index, padding: randomBytes(16 * (file + 1)).toString('hex') },
          elements_chain: '',
        },
        {},
        flushedAt,
      );
    });
    const name = `${lakeTimeName(flushedAt)}-${randomBytes(6).toString('hex')}`;
    await store.put(lakeFileKey(projectId, date, name), await parquetOf(rows));
  }
  return uuids;
}

/** What a reader sees: rows and distinct uuids over the files the listing rule gives. */
async function readerView(
  store: DirectoryLakeStore,
): Promise<{ rows: number; uuids: number; files: number }> {
  const keys = await lakeFilesToRead(
    async (prefix) => (await store.list(prefix)).map((object) => object.key),
    projectId,
  );
  if (keys.length === 0) return { rows: 0, uuids: 0, files: 0 };
  const { connection } = await lakeDatabase();
  const list = keys.map((key) => `'${join(store.root, key)}'`).join(', ');
  const [row] = (
    await connection.runAndReadAll(
      `SELECT count(*) AS rows, count(DISTINCT uuid) AS uuids FROM read_parquet([${list}], hive_partitioning = false)`,
    )
  ).getRowObjectsJson();
  return { rows: Number(row!.rows), uuids: Number(row!.uuids), files: keys.length };
}

const settings: CompactionSettings = {
  settleMs: 16 * minute,
  graceMs: 0,
  targetBytes: 256 * 2 ** 20,
  largeBytes: 64 * 2 ** 20,
};

class Stopped extends Error {}

/**
 * The store, stopped (throwing) at its `stopAt`-th write or delete; before each one a reader checks
 * that it sees every row once.
 */
function stoppingStore(
  store: DirectoryLakeStore,
  stopAt: number,
  expected: number,
): LakeStore & { steps: number } {
  const wrapped = { ...store, steps: 0 };
  const step = async (): Promise<void> => {
    expect(await readerView(store)).toMatchObject({ rows: expected, uuids: expected });
    wrapped.steps++;
    if (wrapped.steps === stopAt) throw new Stopped(`stopped at step ${stopAt}`);
  };
  for (const operation of ['upload', 'put', 'copy', 'delete'] as const) {
    const original = store[operation] as (...args: unknown[]) => Promise<void>;
    (wrapped as Record<string, unknown>)[operation] = async (...args: unknown[]): Promise<void> => {
      await step();
      await original(...args);
    };
  }
  return wrapped;
}

describe('lake compaction', () => {
  it('merges a small partition into one file a day, every row once, and removes the merged files', async () => {
    const store = await freshStore();
    const uuids = await writeFlushFiles(store, 5, 40);
    expect(await readerView(store)).toEqual({ rows: 200, uuids: 200, files: 5 });

    // Now: long after the day; the merged files go at once (no grace period).
    const outcome = await compactPartition(store, partition, new Date(), settings);

    expect(outcome).toMatchObject({ filesMerged: 5, filesWritten: 1, objectsDeleted: 5 });
    expect(await readerView(store)).toEqual({ rows: 200, uuids: 200, files: 1 });
    // The partition holds the compacted file and its marker, nothing else.
    const left = (await store.list(partition)).map((object) => object.key.slice(partition.length));
    expect(left).toHaveLength(2);
    expect(left.filter((name) => name.startsWith('_compacted-'))).toHaveLength(1);
    const { connection } = await lakeDatabase();
    const [file] = await lakeFilesToRead(
      async (prefix) => (await store.list(prefix)).map((o) => o.key),
      projectId,
    );
    const read = (
      await connection.runAndReadAll(
        `SELECT uuid FROM read_parquet('${join(store.root, file!)}') ORDER BY uuid`,
      )
    ).getRowObjectsJson();
    expect(read.map((row) => row.uuid)).toEqual([...uuids].sort());
  });

  it('keeps the merged files for the grace period, then removes them', async () => {
    const store = await freshStore();
    await writeFlushFiles(store, 3, 10);
    const grace = { ...settings, graceMs: 60 * minute };

    await compactPartition(store, partition, afterTheDay, grace);
    expect((await store.list(partition)).length).toBe(5);
    expect(await readerView(store)).toEqual({ rows: 30, uuids: 30, files: 1 });

    // Within the grace period: nothing to merge, nothing removed.
    const later = new Date(Date.now() + 30 * minute);
    expect(await compactPartition(store, partition, later, grace)).toMatchObject({ objectsDeleted: 0 });
    const afterGrace = new Date(Date.now() + 61 * minute);
    expect(await compactPartition(store, partition, afterGrace, grace)).toMatchObject({
      objectsDeleted: 3,
    });
    expect(await readerView(store)).toEqual({ rows: 30, uuids: 30, files: 1 });
  });

  it('merges a late file into the compacted one; files written after the cutoff stay as they are', async () => {
    const store = await freshStore();
    await writeFlushFiles(store, 3, 10);
    await compactPartition(store, partition, afterTheDay, settings);
    // A late event's flush file, and another one too recent to be complete yet.
    const late = async (at: Date, uuid: string): Promise<void> => {
      const row = lakeRowOf(
        {
          uuid,
          event: 'late',
          distinct_id: 'user-1',
          timestamp: `${date}T23:00:00.000Z`,
          created_at: at.toISOString(),
          properties: {},
          elements_chain: '',
        },
        {},
        at,
      );
      await store.put(
        lakeFileKey(projectId, date, `${lakeTimeName(at)}-aaaaaaaaaaaa`),
        await parquetOf([row]),
      );
    };
    const now = new Date('2024-03-09T12:00:00Z');
    await late(new Date(now.getTime() - 60 * minute), '0190a1b2-0000-7000-8000-00000000aaa1');
    await late(new Date(now.getTime() - 5 * minute), '0190a1b2-0000-7000-8000-00000000aaa2');

    const outcome = await compactPartition(store, partition, now, settings);

    expect(outcome).toMatchObject({ filesMerged: 2, filesWritten: 1 });
    expect(await readerView(store)).toEqual({ rows: 32, uuids: 32, files: 2 });
  });

  it('splits a large partition into files under the target size and keeps large files whole', async () => {
    const store = await freshStore();
    await writeFlushFiles(store, 6, 50);
    const sizes = (await store.list(partition)).map((object) => object.size).sort((a, b) => a - b);
    // The largest file is "large"; the others merge two or three to a file.
    const split = { ...settings, largeBytes: sizes[5]!, targetBytes: sizes[4]! * 2 + 1 };

    const outcome = await compactPartition(store, partition, afterTheDay, split);

    expect(outcome.filesMerged).toBe(6);
    expect(outcome.filesWritten).toBeGreaterThanOrEqual(3);
    expect(await readerView(store)).toEqual({ rows: 300, uuids: 300, files: outcome.filesWritten });
  });

  it('loses no row and duplicates none when stopped at any step, and finishes on the next run', async () => {
    const sizes = { files: 6, perFile: 20 };
    const expected = sizes.files * sizes.perFile;
    // A reference run: how many writes and deletes a whole compaction makes.
    const reference = await freshStore();
    await writeFlushFiles(reference, sizes.files, sizes.perFile);
    const referenceSizes = (await reference.list(partition)).map((o) => o.size).sort((a, b) => a - b);
    const split = {
      ...settings,
      largeBytes: referenceSizes[5]!,
      targetBytes: referenceSizes[4]! * 2 + 1,
    };
    const counting = stoppingStore(reference, 0, expected);
    await compactPartition(counting, partition, afterTheDay, split);
    const steps = counting.steps;
    // At least a copy, two merged uploads, the marker and the deletion.
    expect(steps).toBeGreaterThanOrEqual(5);

    for (let stopAt = 1; stopAt <= steps; stopAt++) {
      const store = await freshStore();
      await writeFlushFiles(store, sizes.files, sizes.perFile);
      await expect(
        compactPartition(stoppingStore(store, stopAt, expected), partition, afterTheDay, split),
      ).rejects.toBeInstanceOf(Stopped);
      expect(await readerView(store)).toMatchObject({ rows: expected, uuids: expected });

      // The next run (later, past the grace period) cleans up what the stopped one left and finishes.
      await compactPartition(store, partition, new Date(Date.now() + minute), split);
      const view = await readerView(store);
      expect(view).toMatchObject({ rows: expected, uuids: expected });
      const readable = new Set(
        await lakeFilesToRead(async (prefix) => (await store.list(prefix)).map((o) => o.key), projectId),
      );
      // Nothing left but what readers read and the newest marker.
      const rest = (await store.list(partition)).filter((object) => !readable.has(object.key));
      expect(rest.map((object) => object.key.slice(partition.length))).toEqual([
        expect.stringMatching(/^_compacted-/),
      ]);
    }
  }, 120_000);

  it('tells the lake writer a claimed file was merged after the compaction removed it, across compactions', async () => {
    const store = await freshStore();
    await writeFlushFiles(store, 2, 5);
    const [first] = (await store.list(partition)).map((object) => object.key);
    const never = lakeFileKey(projectId, date, `${lakeTimeName(new Date(`${date}T02:00:00Z`))}-000000000000`);
    expect(await lakeFileMerged(store, first!)).toBe(false);

    await compactPartition(store, partition, afterTheDay, settings);
    expect((await store.list(first!)).length).toBe(0);
    expect(await lakeFileMerged(store, first!)).toBe(true);
    // A claim whose writer stopped before its upload names a file no compaction merged.
    expect(await lakeFileMerged(store, never)).toBe(false);

    // A late file, then a second compaction: the first files stay known as merged.
    const late = lakeFileKey(
      projectId,
      date,
      `${lakeTimeName(new Date(Date.now() - 3_600_000))}-bbbbbbbbbbbb`,
    );
    const lateRow = lakeRowOf(
      {
        uuid: '0190a1b2-0000-7000-8000-00000000bbb1',
        event: 'late',
        distinct_id: 'user-1',
        timestamp: `${date}T23:00:00.000Z`,
        created_at: new Date().toISOString(),
        properties: {},
        elements_chain: '',
      },
      {},
      new Date(),
    );
    await store.put(late, await parquetOf([lateRow]));
    await compactPartition(store, partition, new Date(), settings);
    expect(await lakeFileMerged(store, first!)).toBe(true);
    expect(await lakeFileMerged(store, late)).toBe(true);
    expect(await readerView(store)).toEqual({ rows: 11, uuids: 11, files: 1 });
  });

  it('compacts only dates that are over (plus the settle time), across projects', async () => {
    const store = await freshStore();
    await writeFlushFiles(store, 2, 5);
    const sameDay = new Date(`${date}T23:59:00Z`);
    expect(await compactLake(store, settings, Date.now() + 60_000, () => sameDay)).toMatchObject({
      partitions: 0,
    });
    const justOver = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000 + 16 * minute);
    expect(await compactLake(store, settings, Date.now() + 60_000, () => justOver)).toMatchObject({
      partitions: 1,
      filesMerged: 2,
      filesWritten: 1,
    });
  });
  it('rewrites files of schema version 1 as version 2, every property read back as it was sent', async () => {
    const store = await freshStore();
    const sent = (index: number, sessionId: string): LakeEvent => ({
      uuid: `0190a1b2-0000-7000-8000-00000000000${index}`,
      event: '$pageview',
      distinct_id: 'u1',
      timestamp: `${date}T10:0${index}:00.000Z`,
      created_at: `${date}T10:0${index}:00.000Z`,
      properties: { $session_id: sessionId, $browser: 'Firefox', plan: 'pro' },
      elements_chain: '',
    });
    const events = [sent(1, '0190a1b2-0000-7000-8000-0000000000aa'), sent(2, 'not-a-uuid'), sent(3, 'x')];
    // Two version 1 flush files (one of them alone would not be merged).
    for (const [index, part] of [events.slice(0, 2), events.slice(2)].entries()) {
      const name = `${lakeTimeName(new Date(Date.parse(`${date}T11:00:00Z`) + index * minute))}-${randomBytes(6).toString('hex')}`;
      await store.put(lakeFileKey(projectId, date, name), Buffer.alloc(0));
      await writeVersionOneFile(join(store.root, lakeFileKey(projectId, date, name)), part);
    }

    await compactPartition(store, partition, new Date(), settings);

    const [file] = await lakeFilesToRead(
      async (prefix) => (await store.list(prefix)).map((o) => o.key),
      projectId,
    );
    const path = join(store.root, file!);
    const { connection } = await lakeDatabase();
    const read = (
      await connection.runAndReadAll(
        `SELECT uuid::VARCHAR AS uuid, session_id::VARCHAR AS session_id, ${propertiesSql((name) => `"${name}"`)} AS properties, ` +
          `(SELECT value::VARCHAR FROM parquet_kv_metadata('${path}') WHERE key::VARCHAR = '${schemaVersionKey}') AS version, ` +
          `(SELECT type::VARCHAR FROM parquet_schema('${path}') WHERE name = 'session_id') AS type ` +
          `FROM read_parquet('${path}') ORDER BY uuid`,
      )
    ).getRowObjectsJson();
    expect(read.map((row) => [row.version, row.type])).toEqual(
      Array(3).fill([String(lakeSchemaVersion), 'FIXED_LEN_BYTE_ARRAY']),
    );
    expect(read.map((row) => row.session_id)).toEqual(['0190a1b2-0000-7000-8000-0000000000aa', null, null]);
    expect(read.map((row) => JSON.parse(row.properties as string) as unknown)).toEqual(
      events.map((event) => event.properties),
    );
  });
});
