import type { FlockFunctionProps } from './flock-function';
import { duckDbPackages, lakeNativePackage } from './lake-function';

/**
 * PostHog's HogQL parser (`@posthog/hogql-parser`): JavaScript with its WebAssembly inlined as base64,
 * 1.1 MB, which only a HogQL query needs (functions/shared/query/hogql/compile.ts requires it on the
 * first parse). Bundled, it doubled the query function's bundle; the asset carries it installed
 * instead.
 */
export const hogqlParserPackage = '@posthog/hogql-parser';

/**
 * DuckDB's JavaScript API and the package that picks its binding for the platform (with the C library
 * detection it asks): 200 KB of the bundle that only a query needs, imported on the first query
 * (functions/query/database.ts).
 */
export const duckDbJavaScriptPackages = ['@duckdb/node-api', '@duckdb/node-bindings', 'detect-libc'];

/** What a function's asset carries beside its bundle, and what the bundle leaves out for it. */
export type FunctionPackages = Pick<
  FlockFunctionProps,
  'externalModules' | 'nativePackages' | 'installedPackages' | 'separatelyBundledPackages'
>;

/**
 * The packages of each function (by its `functions/<name>/` folder) that are not in its bundle: the
 * stack deploys them so (lib/stateless-stack.ts, lib/lake-function.ts) and bench/cold-start.ts loads
 * the bundles as deployed. DuckDB's binding for Lambda's platform is left out of the bundle and carried
 * in the asset's node_modules (lib/lake-function.ts).
 */
export const functionPackages: Readonly<Partial<Record<string, FunctionPackages>>> = {
  // The S3 client reads the GeoIP database only for a stack given one in S3, on a container's first
  // lookup (functions/consumer/geoip/locator.ts): with what it pulls in, 235 KB of a 766 KB bundle.
  consumer: { separatelyBundledPackages: ['@aws-sdk/client-s3'] },
  lake: duckDbPackages,
  query: {
    nativePackages: [lakeNativePackage],
    installedPackages: [...duckDbJavaScriptPackages, hogqlParserPackage],
  },
};
