import { httpFunctionTimeoutSeconds } from '../routes';

/**
 * The query function's budgets (docs/query-api.md). Plain data: the stateless stack reads them for the
 * function's memory and timeout, the function for its DuckDB settings.
 */

/** Memory of the query function (MB): DuckDB's limit below plus Node's own heap and the bundle. */
export const queryFunctionMemoryMb = 2048;

/** What one query may take. */
export const queryBudget = {
  /**
   * Parquet bytes one query may download from the lake into the function's /tmp (Lambda's default
   * ephemeral storage is 512 MB). A query past it is refused before anything is downloaded.
   */
  maxLakeBytes: 256 * 1024 * 1024,
  /** Lake files downloaded at once. */
  downloadConcurrency: 8,
  /** DuckDB's memory limit. */
  memoryLimit: '1GB',
  /** DuckDB's threads (Lambda gives a 2,048 MB function a bit more than one vCPU). */
  threads: 2,
  /**
   * How long the compiled SQL may run before it is interrupted (504): within the function's 10 s
   * (`httpFunctionTimeoutSeconds`), leaving room for listing and downloading the files.
   */
  timeoutMs: 7_000,
} as const;

/**
 * Async queries (docs/query-api.md "Async queries"): a run is the query function invoked by the runs
 * queue's event source, under the same budgets as a request (`queryBudget`) and the same function
 * timeout, so a status can tell a run that will never end from one still running.
 */
export const asyncQuery = {
  /** How long a status is kept, and a finished one's results: PostHog's `STATUS_TTL_SECONDS`. */
  statusTtlSeconds: 600,
  /**
   * How long a run may wait in the queue to be picked up: past it, it is never run and its status
   * reads as errored.
   */
  pickupWindowMs: 60_000,
  /**
   * How long a picked-up run may take before its status reads as errored: the query function's
   * timeout (`httpFunctionTimeoutSeconds`, 10 s), after which Lambda has ended it, and a second for
   * the clocks of two invocations.
   */
  runDeadlineMs: httpFunctionTimeoutSeconds * 1000 + 1000,
  /** The largest query (its JSON) an async run keeps in its status item, within DynamoDB's 400 KB. */
  maxQueryBytes: 64_000,
  /**
   * The largest response (its JSON) a status keeps: with the query, within an item's 400 KB. A larger
   * one completes the status with an error saying so.
   */
  maxResultsBytes: 300_000,
} as const;
