import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lakeEventsPrefix } from '../shared/lake/layout';
import {
  baseName,
  compactedName,
  compactedPrefix,
  cutoffOf,
  isFlushFile,
  lakeTimeName,
  markerCompaction,
  markerName,
  newestCompaction,
  readableNames,
} from '../shared/lake/listing';
import { lakeColumns, lakeSchemaVersion, schemaVersionKey } from '../shared/lake/schema';
import { canonicalUuid } from '../shared/domain/uuid';
import { logger } from '../shared/logger';
import { lakeDatabase } from './parquet';
import type { LakeObject, LakeStore } from './store';

/**
 * Lake compaction: merges a partition's small files into files of up to `targetBytes` (one file a
 * day for a small project), committed by a marker that switches readers over at once (the listing
 * rule, functions/shared/lake/listing.ts), then removes what it merged once `graceMs` has passed.
 * Stopped at any point, it leaves the readers' view whole: files written before the marker are not
 * read, files merged stay until the grace period after a marker; the next run cleans up and goes on.
 * One job at a time (the function's reserved concurrency is 1; the local schedule never overlaps).
 */

export interface CompactionSettings {
  readonly settleMs: number;
  readonly graceMs: number;
  readonly targetBytes: number;
  readonly largeBytes: number;
}

/** What a commit marker holds. */
export interface CompactionMarker {
  readonly cutoff: string;
  /** The compaction's files (names within the partition). */
  readonly files: readonly string[];
  /** Every flush file merged into the partition's compactions so far (names). */
  readonly merged: readonly string[];
}

export interface CompactionOutcome {
  readonly partitions: number;
  readonly filesMerged: number;
  readonly filesWritten: number;
  readonly objectsDeleted: number;
}

const day = 86_400_000;

/** Which of a partition's objects may go now: out of the readers' view for longer than the grace. */
export function removable(objects: readonly LakeObject[], now: Date, graceMs: number): string[] {
  const names = objects.map((object) => baseName(object.key));
  const newest = newestCompaction(names);
  const readable = new Set(readableNames(names));
  const newestMarker = newest === undefined ? undefined : markerName(newest);
  const committed = new Set(names.map(markerCompaction).filter((name) => name !== undefined));
  const switchedAt = objects.find((object) => baseName(object.key) === newestMarker)?.lastModified;
  const graceOver = (since: Date): boolean => now.getTime() - since.getTime() >= graceMs;
  return objects
    .filter((object) => {
      const name = baseName(object.key);
      if (readable.has(name) || name === newestMarker) return false;
      if (name.startsWith(compactedPrefix)) {
        const compaction = name.slice(compactedPrefix.length, name.lastIndexOf('-'));
        // A compaction not committed (stopped, or still writing): gone once it is older than the grace.
        if (!committed.has(compaction)) return graceOver(object.lastModified);
      }
      // Read before the newest marker switched the readers over; and not at all without one.
      return switchedAt !== undefined && graceOver(switchedAt);
    })
    .map((object) => object.key);
}

/** Groups of files to merge: each under `targetBytes` (summed), in name order. */
function mergeGroups(small: readonly LakeObject[], targetBytes: number): LakeObject[][] {
  const groups: LakeObject[][] = [];
  let current: LakeObject[] = [];
  let bytes = 0;
  for (const object of small) {
    if (current.length > 0 && bytes + object.size > targetBytes) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(object);
    bytes += object.size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Each column as the current schema types it. A `uuid` column of a version 1 file is text, which may
 * not be a UUID (`$session_id` is whatever the client sent): it becomes a UUID when it is one in
 * canonical form, else null (its property is still in that row's JSON, as version 1 kept them all).
 */
const columnList = lakeColumns
  .map((column) =>
    column.type === 'uuid'
      ? `CASE WHEN regexp_full_match(CAST(${quoted(column.name)} AS VARCHAR), '${canonicalUuid.source.slice(1, -1)}') ` +
        `THEN CAST(${quoted(column.name)} AS UUID) END AS ${quoted(column.name)}`
      : quoted(column.name),
  )
  .join(', ');

/**
 * zstd's level for compacted files: written once and read for long, they get a higher level than
 * the flushes' default 3. On a 33,000-event day of the bench's mix, the UUID, name, id, time and
 * properties columns took 56.8 bytes per event at level 3, 54.3 at 9 (about the same CPU), 53.5 at
 * 19 (30 times the CPU).
 */
const compactionZstdLevel = 9;

/** Merges local Parquet files into one, sorted by time, with the writer's columns and metadata. */
async function mergeFiles(inputs: readonly string[], output: string): Promise<void> {
  const { connection } = await lakeDatabase();
  const files = inputs.map((path) => `'${path.replaceAll("'", "''")}'`).join(', ');
  await connection.run(
    `COPY (SELECT ${columnList} FROM read_parquet([${files}], union_by_name = true, hive_partitioning = false) ` +
      `ORDER BY "timestamp", uuid) TO '${output.replaceAll("'", "''")}' ` +
      `(FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${compactionZstdLevel}, ` +
      `KV_METADATA {${schemaVersionKey}: '${lakeSchemaVersion}'})`,
  );
}

async function previousMerged(
  store: LakeStore,
  prefix: string,
  newest: string | undefined,
): Promise<string[]> {
  if (newest === undefined) return [];
  const marker = JSON.parse(await store.get(`${prefix}${markerName(newest)}`)) as CompactionMarker;
  return [...marker.merged];
}

/**
 * Compacts one partition (`prefix`, ending in `/`): cleans up what the grace period allows, merges
 * the readable files before the cutoff (`now` less `settleMs`) if two or more of them are small, and
 * commits. Returns what it did.
 */
export async function compactPartition(
  store: LakeStore,
  prefix: string,
  now: Date,
  settings: CompactionSettings,
): Promise<Omit<CompactionOutcome, 'partitions'>> {
  let objects = await store.list(prefix);
  let objectsDeleted = 0;
  const cleanUp = async (at: Date): Promise<void> => {
    const keys = removable(objects, at, settings.graceMs);
    await store.delete(keys);
    objectsDeleted += keys.length;
  };
  await cleanUp(now);
  const names = objects.map((object) => baseName(object.key));
  const newest = newestCompaction(names);
  const cutoff = lakeTimeName(new Date(now.getTime() - settings.settleMs));
  const idle = { filesMerged: 0, filesWritten: 0, objectsDeleted };
  if (newest !== undefined && cutoff <= cutoffOf(newest)) return idle;
  const readable = new Set(readableNames(names));
  const inputs = objects
    .filter((object) => readable.has(baseName(object.key)))
    .filter((object) => {
      const name = baseName(object.key);
      return !isFlushFile(name) || name.slice(0, -'.parquet'.length) < cutoff;
    })
    .sort((a, b) => (a.key < b.key ? -1 : 1));
  const small = inputs.filter((object) => object.size < settings.largeBytes);
  if (small.length < 2) return idle;

  const compaction = `${cutoff}-${randomBytes(6).toString('hex')}`;
  const files: string[] = [];
  const workDir = await mkdtemp(join(tmpdir(), 'flock-lake-compact-'));
  try {
    for (const large of inputs.filter((object) => object.size >= settings.largeBytes)) {
      const name = compactedName(compaction, files.length);
      await store.copy(large.key, `${prefix}${name}`);
      files.push(name);
    }
    for (const group of mergeGroups(small, settings.targetBytes)) {
      const paths: string[] = [];
      for (const object of group) {
        const path = join(workDir, `in-${paths.length}.parquet`);
        await store.download(object.key, path);
        paths.push(path);
      }
      const name = compactedName(compaction, files.length);
      const output = join(workDir, name);
      await mergeFiles(paths, output);
      await store.upload(`${prefix}${name}`, output);
      files.push(name);
      await Promise.all([...paths, output].map((path) => rm(path, { force: true })));
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const merged = [
    ...(await previousMerged(store, prefix, newest)),
    ...inputs.map((object) => baseName(object.key)).filter(isFlushFile),
  ];
  const marker: CompactionMarker = { cutoff, files, merged };
  // The commit: from here on readers read `files` (and the flush files after the cutoff).
  await store.put(`${prefix}${markerName(compaction)}`, JSON.stringify(marker));
  objects = await store.list(prefix);
  // The marker was written after `now`: the grace period counts from the time it was.
  await cleanUp(new Date(Math.max(now.getTime(), Date.now())));
  return { filesMerged: inputs.length, filesWritten: files.length, objectsDeleted };
}

/** The dates (`date=<day>/` prefixes) of a project whose day has been over for `settleMs`. */
function settledDates(datePrefixes: readonly string[], now: Date, settleMs: number): string[] {
  return datePrefixes.filter((prefix) => {
    const match = /date=(\d{4}-\d{2}-\d{2})\/$/.exec(prefix);
    return match !== null && Date.parse(`${match[1]}T00:00:00Z`) + day + settleMs <= now.getTime();
  });
}

/**
 * Compacts every settled partition of every project (or of `projectPrefixes`), one at a time, until
 * `deadline` (epoch ms). A partition that fails is logged and left for the next run.
 */
export async function compactLake(
  store: LakeStore,
  settings: CompactionSettings,
  deadline: number,
  now: () => Date = () => new Date(),
): Promise<CompactionOutcome> {
  const total = { partitions: 0, filesMerged: 0, filesWritten: 0, objectsDeleted: 0 };
  for (const projectPrefix of await store.listPrefixes(lakeEventsPrefix)) {
    const dates = settledDates(await store.listPrefixes(projectPrefix), now(), settings.settleMs);
    for (const prefix of dates) {
      if (Date.now() >= deadline) return total;
      try {
        const outcome = await compactPartition(store, prefix, now(), settings);
        total.partitions++;
        total.filesMerged += outcome.filesMerged;
        total.filesWritten += outcome.filesWritten;
        total.objectsDeleted += outcome.objectsDeleted;
      } catch (error) {
        logger.error('Compacting a lake partition failed', { prefix, reason: String(error) });
      }
    }
  }
  return total;
}
