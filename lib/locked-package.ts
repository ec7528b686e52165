import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Packages of the lockfile that npm does not install on this machine: the native binaries of another
 * platform (npm installs only the optional dependencies whose `os`, `cpu` and `libc` match the machine
 * it runs on, while the functions run on Lambda's linux-arm64). At synth time a function's asset
 * fetches them from the registry by the ordinary client (`npm pack`, with the registry, proxy and
 * credentials npm is configured with), verifies the tarball against the lockfile's `integrity` and
 * keeps it, unpacked, under `node_modules/.cache`, so later synths are offline.
 */

export interface LockedPackage {
  readonly name: string;
  readonly version: string;
  /** Subresource Integrity of the tarball (`sha512-<base64>`, possibly several, space-separated). */
  readonly integrity: string;
}

/** The version and integrity the lockfile pins for `name` (installed at the top of node_modules). */
export function lockedPackage(lockfile: string, name: string): LockedPackage {
  const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as {
    packages?: Record<string, { version?: string; integrity?: string }>;
  };
  const packages = lock.packages ?? {};
  const path = `node_modules/${name}`;
  const entry = Object.hasOwn(packages, path) ? packages[path] : undefined;
  if (!entry?.version || !entry.integrity)
    throw new Error(`${lockfile} pins no version and integrity for ${name}`);
  return { name, version: entry.version, integrity: entry.integrity };
}

/** Whether `data` has one of the hashes `integrity` lists (npm's SRI strings; sha512, sha384, sha256). */
export function matchesIntegrity(data: Buffer, integrity: string): boolean {
  return integrity
    .split(/\s+/)
    .filter((entry) => entry.length > 0)
    .some((entry) => {
      const dash = entry.indexOf('-');
      const algorithm = entry.slice(0, dash);
      if (dash < 0 || !['sha512', 'sha384', 'sha256'].includes(algorithm)) return false;
      const expected = entry.slice(dash + 1).split('?')[0];
      return createHash(algorithm).update(data).digest('base64') === expected;
    });
}

/** Downloads the tarball of `name@version` into `dir` and returns its path. */
export type TarballFetch = (pkg: LockedPackage, dir: string) => string;

/** `npm pack <name>@<version>`: the registry's tarball, as is, by npm itself. */
export const npmPack: TarballFetch = (pkg, dir) => {
  execFileSync(
    'npm',
    ['pack', `${pkg.name}@${pkg.version}`, '--pack-destination', dir, '--ignore-scripts', '--loglevel=warn'],
    {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const tarballs = readdirSync(dir).filter((file) => file.endsWith('.tgz'));
  if (tarballs.length !== 1) throw new Error(`npm pack ${pkg.name}@${pkg.version} left no tarball`);
  return join(dir, tarballs[0]!);
};

const tarballName = 'package.tgz';

/**
 * The directory holding `pkg`'s files (the tarball's `package/`), fetched once into `cacheRoot` and
 * verified against the lockfile's integrity each time it is used. A tarball that does not match is
 * refused and nothing is kept.
 */
export function cachedPackage(pkg: LockedPackage, cacheRoot: string, fetch: TarballFetch = npmPack): string {
  const dir = join(cacheRoot, `${pkg.name.replace('/', '+')}@${pkg.version}`);
  const tarball = join(dir, tarballName);
  const files = join(dir, 'package');
  if (existsSync(tarball) && existsSync(files)) {
    if (!matchesIntegrity(readFileSync(tarball), pkg.integrity))
      throw new Error(`${tarball} does not match the lockfile's integrity of ${pkg.name}@${pkg.version}`);
    return files;
  }
  mkdirSync(cacheRoot, { recursive: true });
  // Fetched and unpacked beside the cache entry, then renamed into place: a synth stopped midway
  // leaves no half entry behind.
  const staging = mkdtempSync(join(cacheRoot, '.fetch-'));
  try {
    const fetched = fetch(pkg, staging);
    if (!matchesIntegrity(readFileSync(fetched), pkg.integrity))
      throw new Error(
        `The registry's tarball of ${pkg.name}@${pkg.version} does not match the lockfile's integrity`,
      );
    const entry = join(staging, 'entry');
    mkdirSync(entry);
    renameSync(fetched, join(entry, tarballName));
    execFileSync('tar', ['-xzf', join(entry, tarballName), '-C', entry], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
    renameSync(entry, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return files;
}

/**
 * The directory of `name` as npm installed it in `nodeModules`, for a package with nothing specific
 * to a platform (JavaScript and WebAssembly), which a function's asset carries as installed. Refused
 * unless the installed version is the one the lockfile pins: a stale install never reaches an asset.
 */
export function installedPackage(lockfile: string, nodeModules: string, name: string): string {
  const { version } = lockedPackage(lockfile, name);
  const dir = join(nodeModules, name);
  const manifest = join(dir, 'package.json');
  const installed = existsSync(manifest)
    ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version
    : undefined;
  if (installed !== version)
    throw new Error(
      `${name} ${installed === undefined ? 'is not installed' : `${installed} is installed`} in ${nodeModules}; the lockfile pins ${version} (npm ci)`,
    );
  return dir;
}
