/**
 * Where lake files live in the lake bucket: `events/project_id=<id>/date=<YYYY-MM-DD>/<name>.parquet`
 * (Hive-style partitions, the layout the Glue table's partition projection reads). Files being
 * compacted or written elsewhere never live under `events/`, so readers only ever see whole files.
 */

export const lakeEventsPrefix = 'events/';

/** The Glue (Athena) table over `lakeEventsPrefix`, in the stack's lake database (lib/lake.ts). */
export const lakeTableName = 'events';

/** `toISOString`'s form, in which the consumer hands timestamps over: its date is its first 10 characters. */
const utcIso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The UTC date (`YYYY-MM-DD`) of an ISO 8601 timestamp: the partition its event lands in. */
export function lakeDateOf(timestamp: string): string {
  // Once per event in the lake writer: no Date for the form every handed-over event has. Up to the
  // 28th only, as Date.parse takes 30 February for 1 March.
  if (utcIso.test(timestamp) && timestamp.slice(8, 10) <= '28' && !Number.isNaN(Date.parse(timestamp)))
    return timestamp.slice(0, 10);
  return new Date(timestamp).toISOString().slice(0, 10);
}

/** The prefix of one project's files (every date). */
export function lakeProjectPrefix(projectId: number): string {
  return `${lakeEventsPrefix}project_id=${projectId}/`;
}

/** The prefix of one project-day's files. */
export function lakePartitionPrefix(projectId: number, date: string): string {
  return `${lakeProjectPrefix(projectId)}date=${date}/`;
}

/** The key of a file of a partition, named by its writer (a flush or a compaction). */
export function lakeFileKey(projectId: number, date: string, name: string): string {
  return `${lakePartitionPrefix(projectId, date)}${name}.parquet`;
}
