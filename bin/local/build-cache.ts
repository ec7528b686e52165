import type { Metafile } from 'esbuild';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isRunning } from './start-errors';

/**
 * esbuild builds of the local server's code, kept under `node_modules/.cache/flock-local/` and reused
 * while every file a build read (esbuild's own list) keeps its size and modification time: editing a
 * source rebuilds on the next use. A build still in use by a running process is never removed (each
 * process marks the builds it loads from). The function containers' bundles (container-bundles.ts)
 * and the server's own (server-bundle.ts) are such builds.
 */

/** `<key>/manifest.json`: the current build of a key and what it was built from. */
interface Manifest {
  /** The build's folder, beside the manifest. */
  readonly build: string;
  /** Each input file (absolute path) and its fingerprint when it was built. */
  readonly inputs: Readonly<Record<string, string>>;
}

/** One build to keep: what tells it apart from others, what it writes, how esbuild makes it. */
export interface CachedBuild {
  /** Everything besides its inputs' contents that makes the build what it is (entries, options). */
  readonly key: unknown;
  /** The files (names in the build's folder) without which a build is not usable. */
  readonly outputs: readonly string[];
  /**
   * Runs esbuild into `buildDir`, with `metafile: true`; the files it read are the build's inputs,
   * except those it wrote itself under `buildDir` (generated entries).
   */
  build(buildDir: string): Promise<Metafile>;
}

export interface CacheOptions {
  /** @default node_modules/.cache/flock-local */
  readonly cacheDir?: string;
  /** Mark the build as loaded by this process, so that no rebuild removes it while this process runs. */
  readonly markUsed?: boolean;
}

const root = resolve(__dirname, '../..');

/** Where builds are kept unless told otherwise; `rm -rf` it at any time (the next use rebuilds). */
const defaultCacheDir = join(root, 'node_modules/.cache/flock-local');

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

function readManifest(file: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** Whether the build is still what its inputs would give: every input unchanged, every output there. */
function isCurrent(dir: string, manifest: Manifest, outputs: readonly string[]): boolean {
  for (const [file, seen] of Object.entries(manifest.inputs)) if (fingerprint(file) !== seen) return false;
  return outputs.every((output) => fingerprint(join(dir, manifest.build, output)) !== 'missing');
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

/** When a build's folder last changed; 0 when it is gone (another process pruned it first). */
function changedAt(buildDir: string): number {
  try {
    return statSync(buildDir).mtimeMs;
  } catch {
    return 0;
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
    if (users.length === 0 && Date.now() - changedAt(buildDir) < abandonedBuildMs) continue;
    rmSync(buildDir, { recursive: true, force: true });
  }
}

/** Runs the build into a new folder of `dir`; the new manifest. */
async function buildInto(dir: string, spec: CachedBuild): Promise<Manifest> {
  const name = `build-${Date.now()}-${randomBytes(4).toString('hex')}`;
  const buildDir = join(dir, name);
  mkdirSync(buildDir, { recursive: true });
  const metafile = await spec.build(buildDir);
  const inputs: Record<string, string> = {};
  for (const input of Object.keys(metafile.inputs)) {
    const file = resolve(root, input);
    if (!file.startsWith(buildDir)) inputs[file] = fingerprint(file);
  }
  return { build: name, inputs };
}

/**
 * The folder of the build `spec` describes: the cached one when it is current, else a new one (a few
 * seconds of esbuild), which then becomes the current one.
 */
export async function cachedBuild(spec: CachedBuild, options: CacheOptions = {}): Promise<string> {
  const key = createHash('sha256').update(JSON.stringify(spec.key)).digest('hex').slice(0, 16);
  const dir = join(options.cacheDir ?? defaultCacheDir, key);
  const manifestFile = join(dir, 'manifest.json');
  let manifest = readManifest(manifestFile);
  if (!manifest || !isCurrent(dir, manifest, spec.outputs)) {
    mkdirSync(dir, { recursive: true });
    manifest = await buildInto(dir, spec);
    // Atomic: a process starting meanwhile reads the old manifest or the new one, never half of one.
    const temporary = `${manifestFile}.${randomBytes(4).toString('hex')}`;
    writeFileSync(temporary, JSON.stringify(manifest));
    renameSync(temporary, manifestFile);
    pruneBuilds(dir, manifest.build);
  }
  const buildDir = join(dir, manifest.build);
  if (options.markUsed) markInUse(buildDir);
  return buildDir;
}
