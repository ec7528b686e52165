import { lakeFlush } from '../queue/definitions';

/** Lake compaction's defaults (functions/lake/compact.ts, docs/lake.md). */
export const lakeCompaction = {
  /** How often the compaction job runs on AWS. */
  scheduleMinutes: 60,
  /**
   * Flush files whose name (their flush's start) is this old are complete: a flush ends within the
   * lake function's timeout. A date's partition is compacted once the date is this long over.
   */
  settleSeconds: lakeFlush.functionTimeoutSeconds + 60,
  /** How long merged files stay after the commit, for readers that listed before it. */
  graceSeconds: 3_600,
  /** A compacted file holds at most about this many bytes (the inputs' sizes summed). */
  targetBytes: 256 * 2 ** 20,
  /** A file this large is kept whole (copied into the compaction, not merged). */
  largeBytes: 64 * 2 ** 20,
  /** The job's timeout; it stops starting partitions `reserveSeconds` before it. */
  functionTimeoutSeconds: 900,
  reserveSeconds: 180,
} as const;
