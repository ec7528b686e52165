import { build, version as esbuildVersion } from 'esbuild';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { httpGroups } from '../../functions/routes';
import { isRunning } from './start-errors';

/**
 * Every local function container's code, prebuilt: one CommonJS bundle per function holding the
 * container's runtime (container-runtime.ts), its preloads and its handler module, compiled by esbuild
 * once and kept under `node_modules/.cache/flock-local/`. A container then loads one file, where
 * compiling and resolving the same modules from TypeScript sources (tsx) in every container of every
 * server costs several times the CPU. The preloads are in the bundle, not loaded beside it: they
 * reach into the handler's own module instances (the shared DynamoDB and SQS clients).
 *
 * A build is reused while every file it was built from (esbuild's own list, packages included) keeps
 * its size and modification time: editing a function rebuilds on the next start. A build still in
 * use by a running server is never removed (each server marks the builds it loads from).
 */

/** One function to bundle: its name (`capture`, `consumer`) and handler module. */
export interface ContainerEntry {
  readonly name: string;
  readonly modulePath: string;
}

/** `<key>/manifest.json`: the current build of a set of bundles and what it was built from. */
interface Manifest {
  /** The build's folder, beside the manifest. */
  readonly build: string;
  /** Each input file (absolute path) and its fingerprint when it was built. */
  readonly inputs: Readonly<Record<string, string>>;
}

const root = resolve(__dirname, '../..');

/** Where builds are kept unless told otherwise; `rm -rf` it at any time (the next start rebuilds). */
const defaultBundleCache = join(root, 'node_modules/.cache/flock-local');

/** Bumped when the bundles' options or the entry module's shape change: a new key, a new build. */
const layoutVersion = 1;

/**
 * Packages with native binaries, which esbuild cannot bundle: the bundle requires them from
 * node_modules (resolved from the cache's folder, inside it).
 */
const nativePackages = ['@duckdb/node-api'];

/** An unbuilt build's folder is removed after this long unreferenced (a concurrent build may still fill it). */
const abandonedBuildMs = 10 * 60_000;

/** What a file looked like when a build read it; `missing` when it did not exist (a probed path). */
function fingerprint(file: string): string {
  try {
    const stats = statSync(file);
    return `${stats.size}:${stats.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

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

function readManifest(file: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

const bundleFiles = (dir: string, entries: readonly ContainerEntry[]): Record<string, string> =>
  Object.fromEntries(entries.map(({ name }) => [name, join(dir, `${name}.js`)]));

/** Whether the build is still what its inputs would give: every input unchanged, every bundle there. */
function isCurrent(dir: string, manifest: Manifest, entries: readonly ContainerEntry[]): boolean {
  for (const [file, seen] of Object.entries(manifest.inputs)) if (fingerprint(file) !== seen) return false;
  return Object.values(bundleFiles(join(dir, manifest.build), entries)).every(
    (file) => fingerprint(file) !== 'missing',
  );
}

/** Marks a build as loaded by this process, so that no later rebuild removes it while it runs. */
function markInUse(buildDir: string): void {
  mkdirSync(join(buildDir, 'in-use'), { recursive: true });
  writeFileSync(join(buildDir, 'in-use', String(process.pid)), '');
}

/** The processes that marked a build as theirs (markInUse). */
function usersOf(buildDir: string): number[] {
  try {
    return readdirSync(join(buildDir, 'in-use')).map(Number);
  } catch {
    return [];
  }
}

/**
 * Removes the builds of `dir` other than `current` that no live process loads from, and that are
 * not a build another process may still be filling (unmarked and recent).
 */
function pruneBuilds(dir: string, current: string): void {
  for (const name of readdirSync(dir)) {
    if (name === current || !name.startsWith('build-')) continue;
    const buildDir = join(dir, name);
    const users = usersOf(buildDir);
    if (users.some(isRunning)) continue;
    if (users.length === 0 && Date.now() - fingerprintTime(buildDir) < abandonedBuildMs) continue;
    rmSync(buildDir, { recursive: true, force: true });
  }
}

/** When a build's folder last changed; 0 when it is gone (another process pruned it first). */
function fingerprintTime(buildDir: string): number {
  try {
    return statSync(buildDir).mtimeMs;
  } catch {
    return 0;
  }
}

/** Builds every entry's bundle into a new folder of `dir` in one esbuild run; the new manifest. */
async function buildAll(
  dir: string,
  entries: readonly ContainerEntry[],
  preload: readonly string[],
): Promise<Manifest> {
  const name = `build-${Date.now()}-${randomBytes(4).toString('hex')}`;
  const buildDir = join(dir, name);
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
    // Stack traces name the TypeScript file and line (functions/shared/source-maps.ts reads the map).
    sourcemap: true,
    sourcesContent: false,
    metafile: true,
    logLevel: 'error',
  });
  const inputs: Record<string, string> = {};
  for (const input of Object.keys(metafile.inputs)) {
    const file = resolve(root, input);
    if (!file.startsWith(entriesDir)) inputs[file] = fingerprint(file);
  }
  return { build: name, inputs };
}

/**
 * The bundle of each entry's container (its path by entry name), each loading `preload` in order
 * before the handler: the cached build when it is current, else a new one (a few seconds of esbuild).
 * `markUsed` (a server that will load them) keeps the build from being pruned while this process runs.
 */
export async function containerBundles(
  entries: readonly ContainerEntry[],
  preload: readonly string[],
  options: { readonly cacheDir?: string; readonly markUsed?: boolean } = {},
): Promise<Record<string, string>> {
  const key = createHash('sha256')
    .update(JSON.stringify({ layoutVersion, esbuildVersion, entries, preload, runtime: __dirname }))
    .digest('hex')
    .slice(0, 16);
  const dir = join(options.cacheDir ?? defaultBundleCache, key);
  const manifestFile = join(dir, 'manifest.json');
  let manifest = readManifest(manifestFile);
  if (!manifest || !isCurrent(dir, manifest, entries)) {
    mkdirSync(dir, { recursive: true });
    manifest = await buildAll(dir, entries, preload);
    // Atomic: a server starting meanwhile reads the old manifest or the new one, never half of one.
    const temporary = `${manifestFile}.${randomBytes(4).toString('hex')}`;
    writeFileSync(temporary, JSON.stringify(manifest));
    renameSync(temporary, manifestFile);
    pruneBuilds(dir, manifest.build);
  }
  const buildDir = join(dir, manifest.build);
  if (options.markUsed) markInUse(buildDir);
  return bundleFiles(buildDir, entries);
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
