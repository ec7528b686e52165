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
