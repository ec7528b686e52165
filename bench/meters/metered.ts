/** What meters/write-cost.ts broadcasts from the function containers (no side effects here). */
export const meterChannel = 'flock-bench-write-cost';

/** One metered call. */
export interface Metered {
  readonly tableUnits: number;
  readonly gsiUnits: number;
  /** Write units by kind of item (the first segment of its partition key). */
  readonly byKind: Record<string, number>;
  readonly sendChunks: number;
  readonly messageBytes: readonly number[];
}
