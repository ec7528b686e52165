import { build, version as esbuildVersion } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { httpGroups } from '../../functions/routes';
import { functionAliases } from '../../lib/bundle-aliases';
import { cachedBuild } from './build-cache';
import type { CacheOptions } from './build-cache';

/**
 * Every local function container's code, prebuilt: one CommonJS bundle per function holding the
 * container's runtime (container-runtime.ts), its preloads and its handler module, compiled by esbuild
 * once and kept under `node_modules/.cache/flock-local/`. A container then loads one file, where
 * compiling and resolving the same modules from TypeScript sources (tsx) in every container of every
 * server costs several times the CPU. The preloads are in the bundle, not loaded beside it: they
 * reach into the handler's own module instances (the shared DynamoDB and SQS clients).
 *
 * A build is reused while every file it was built from (packages included) keeps its size and
 * modification time (build-cache.ts): editing a function rebuilds on the next start.
 */

/** One function to bundle: its name (`capture`, `consumer`) and handler module. */
export interface ContainerEntry {
  readonly name: string;
  readonly modulePath: string;
}

const root = resolve(__dirname, '../..');

/** Bumped when the bundles' options or the entry module's shape change: a new key, a new build. */
const layoutVersion = 3;

/**
 * Packages with native binaries, which esbuild cannot bundle: the bundle requires them from
 * node_modules (resolved from the cache's folder, inside it).
 */
const nativePackages = ['@duckdb/node-api'];

/** The entry module of one container: runtime first, then the preloads in order, then the handler. */
function entrySource(modulePath: string, preload: readonly string[]): string {
  const imported = (path: string): string => JSON.stringify(path);
  return [
    `import ${imported(join(__dirname, 'quiet-sdk'))};`,
    `import { serveInvocations } from ${imported(join(__dirname, 'container-runtime'))};`,
    ...preload.map((module, index) => `import * as preload${index} from ${imported(module)};`),
    `import * as handlerModule from ${imported(modulePath)};`,
    `serveInvocations([${preload.map((_, index) => `preload${index}`).join(', ')}], handlerModule);`,
  ].join('\n');
}

/** Builds every entry's bundle into `buildDir` in one esbuild run. */
async function buildAll(buildDir: string, entries: readonly ContainerEntry[], preload: readonly string[]) {
  const entriesDir = join(buildDir, 'entries');
  mkdirSync(entriesDir, { recursive: true });
  for (const entry of entries)
    writeFileSync(join(entriesDir, `${entry.name}.ts`), entrySource(entry.modulePath, preload));
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: entries.map((entry) => ({ in: join(entriesDir, `${entry.name}.ts`), out: entry.name })),
    outdir: buildDir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    mainFields: ['module', 'main'],
    external: nativePackages,
    // As the deployed bundles: credentials from the environment (the server sets them), no event streams.
    alias: { ...functionAliases },
    // Stack traces name the TypeScript file and line (functions/shared/source-maps.ts reads the map).
    sourcemap: true,
    sourcesContent: false,
    metafile: true,
    logLevel: 'error',
  });
  return metafile;
}

/**
 * The bundle of each entry's container (its path by entry name), each loading `preload` in order
 * before the handler: the cached build when it is current, else a new one (a few seconds of esbuild).
 * `markUsed` (a server that will load them) keeps the build from being pruned while this process runs.
 */
export async function containerBundles(
  entries: readonly ContainerEntry[],
  preload: readonly string[],
  options: CacheOptions = {},
): Promise<Record<string, string>> {
  const buildDir = await cachedBuild(
    {
      key: { layoutVersion, esbuildVersion, entries, preload, runtime: __dirname },
      outputs: entries.map(({ name }) => `${name}.js`),
      build: (into) => buildAll(into, entries, preload),
    },
    options,
  );
  return Object.fromEntries(entries.map(({ name }) => [name, join(buildDir, `${name}.js`)]));
}

/** Every function of the stack the local server runs: the HTTP groups, the consumer, and the rest. */
export function localFunctionEntries(): ContainerEntry[] {
  const functionsDir = join(root, 'functions');
  return [
    ...[...httpGroups, 'consumer', 'cohort_calculation', 'exports', 'lake'].map((name) => ({
      name,
      modulePath: join(functionsDir, name, 'handler.ts'),
    })),
    // The lake's upkeep job lives beside the lake writer (one asset directory on AWS too).
    { name: 'lake_compaction', modulePath: join(functionsDir, 'lake', 'compact-handler.ts') },
  ];
}

/** Every container plays its IAM role first (iam-guard.ts), then loads the caller's preloads. */
export const localPreload = (preload: readonly string[] = []): string[] => [
  join(__dirname, 'iam-guard.ts'),
  ...preload,
];

/** The local server's bundles: every function, with `preload` after the IAM guard. */
export const localContainerBundles = (
  preload?: readonly string[],
  options?: { readonly markUsed?: boolean },
): Promise<Record<string, string>> =>
  containerBundles(localFunctionEntries(), localPreload(preload), options);
