import { readlinkSync } from 'node:fs';

/** What the meters under bench/meters broadcast from the function containers (no side effects here). */
export const meterChannel = 'flock-bench-write-cost';

/** One metered call. */
export interface Metered {
  readonly tableUnits: number;
  readonly gsiUnits: number;
  /** Write units by kind of item (the first segment of its partition key). */
  readonly byKind: Record<string, number>;
  readonly sendChunks: number;
  readonly messageBytes: readonly number[];
  /**
   * Writes refused by their condition (a lost claim, a stale version): DynamoDB bills them (at least
   * a write unit each), but they throw before the consumed capacity reaches the meter. By kind of item.
   */
  readonly refusedWrites: Record<string, number>;
  /** SQS requests on the lake queue (hand-offs by 64 KB chunk, the lake function's receives and deletes). */
  readonly lakeRequests?: number;
  /** Lake files uploaded (PutObject) and their bytes. */
  readonly lakePuts?: number;
  readonly lakeBytes?: number;
  /** Read units consumed, by `<function> <kind of item>` (E for event items, LAKE for claims…). */
  readonly readUnits?: Record<string, number>;
  /** Milliseconds of one invocation, by function (Lambda bills GB-seconds of it). */
  readonly invocationMs?: Record<string, number>;
}

/** What meters/storage-faults.ts broadcasts: counts to add up. */
export const faultChannel = 'flock-bench-storage-faults';

/** The share of consumer batches whose storage fails (10%). */
export const faultyBatchShare = 0.1;

export interface FaultReport {
  readonly batches: number;
  readonly faultyBatches: number;
  readonly failedWrites: number;
}

/** This thread's id in /proc (`<pid>/task/<tid>`), or 0 where there is no /proc. */
export function threadIdOfThisThread(): number {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return 0;
  }
}

/** What meters/invocation-timeline.ts broadcasts: one invocation of a function container. */
export const invocationChannel = 'flock-bench-invocations';

export interface InvocationSpan {
  readonly functionName: string;
  /** The container's thread id in /proc/<pid>/task. */
  readonly tid: number;
  /** Epoch milliseconds. */
  readonly started: number;
  readonly ended: number;
  /** SQS records of the event (0 for an HTTP request). */
  readonly records: number;
}
