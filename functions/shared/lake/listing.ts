import { lakePartitionPrefix, lakeProjectPrefix } from './layout';

/**
 * THE listing rule: which of a partition's objects a reader reads, so that a reader listing at any
 * moment, during or after a compaction (functions/lake/compact.ts), sees each row exactly once.
 *
 * A partition (`events/project_id=<id>/date=<day>/`) holds three kinds of objects:
 * - flush files `<flush name>.parquet`, the flush name starting with its flush's time
 *   (`20261127T052853123Z-…`, so names sort by time);
 * - compacted files `c-<compaction>-<n>.parquet`, `<compaction>` being `<cutoff>-<random>`, the
 *   cutoff a time in the same form as a flush name;
 * - commit markers `_compacted-<compaction>.json` (hidden from Athena, which skips names starting
 *   with `_`), written once every compacted file of that compaction is in place.
 *
 * The rule: take the newest marker (greatest `<compaction>`). Without one, read every flush file.
 * With one, read its compaction's files and the flush files whose name sorts at or after its cutoff;
 * nothing else (older compactions' files, merged flush files, files of a compaction not yet
 * committed). A compaction merges exactly the files this rule gives, up to its cutoff, so the newest
 * marker's files hold every row of every flush file before its cutoff: writing the marker switches
 * readers from the old files to the new ones at once, and the old files stay a grace period for
 * readers that listed before the switch.
 */

export const compactedPrefix = 'c-';
export const markerPrefix = '_compacted-';
const parquet = '.parquet';
const markerSuffix = '.json';

/** A time as flush names and cutoffs spell it: `2026-11-27T05:28:53.123Z` → `20261127T052853123Z`. */
export function lakeTimeName(time: Date): string {
  return time.toISOString().replace(/[-:.]/g, '');
}

/** The last path segment of a key. */
export const baseName = (key: string): string => key.slice(key.lastIndexOf('/') + 1);

/** A compaction's name (`<cutoff>-<random>`) out of its marker's name, or undefined. */
export function markerCompaction(name: string): string | undefined {
  return name.startsWith(markerPrefix) && name.endsWith(markerSuffix)
    ? name.slice(markerPrefix.length, -markerSuffix.length)
    : undefined;
}

/** The cutoff of a compaction name `<cutoff>-<random>`. */
export const cutoffOf = (compaction: string): string => compaction.slice(0, compaction.indexOf('-'));

export const markerName = (compaction: string): string => `${markerPrefix}${compaction}${markerSuffix}`;

export const compactedName = (compaction: string, index: number): string =>
  `${compactedPrefix}${compaction}-${index}${parquet}`;

/** A flush file's name (`<flush name>.parquet`): not compacted, not hidden. */
export const isFlushFile = (name: string): boolean =>
  name.endsWith(parquet) && !name.startsWith(compactedPrefix) && !name.startsWith('_');

/** The newest committed compaction among a partition's object names, if any. */
export function newestCompaction(names: readonly string[]): string | undefined {
  let newest: string | undefined;
  for (const name of names) {
    const compaction = markerCompaction(name);
    if (compaction !== undefined && (newest === undefined || compaction > newest)) newest = compaction;
  }
  return newest;
}

/** The names a reader reads among one partition's object names (the rule above). */
export function readableNames(names: readonly string[]): string[] {
  const newest = newestCompaction(names);
  if (newest === undefined) return names.filter(isFlushFile);
  const cutoff = cutoffOf(newest);
  const ofNewest = `${compactedPrefix}${newest}-`;
  return names.filter(
    (name) =>
      (name.startsWith(ofNewest) && name.endsWith(parquet)) ||
      (isFlushFile(name) && name.slice(0, -parquet.length) >= cutoff),
  );
}

/** Lists every key under a prefix (all pages). */
export type ListKeys = (prefix: string) => Promise<readonly string[]>;

/**
 * The files a reader reads for project `projectId` (every date, or only `dates`): every reader of
 * the lake (tests, the query code, scripts) lists through this function.
 */
export async function lakeFilesToRead(
  listKeys: ListKeys,
  projectId: number,
  dates?: readonly string[],
): Promise<string[]> {
  const keys = dates
    ? (await Promise.all(dates.map((date) => listKeys(lakePartitionPrefix(projectId, date))))).flat()
    : await listKeys(lakeProjectPrefix(projectId));
  return readableKeys(keys);
}

/** The keys a reader reads among any listing of lake keys (each partition by the rule above). */
export function readableKeys(keys: readonly string[]): string[] {
  const byPartition = new Map<string, string[]>();
  for (const key of keys) {
    const partition = key.slice(0, key.lastIndexOf('/') + 1);
    const names = byPartition.get(partition) ?? [];
    names.push(baseName(key));
    byPartition.set(partition, names);
  }
  return [...byPartition].flatMap(([partition, names]) =>
    readableNames(names).map((name) => `${partition}${name}`),
  );
}
