import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LockedPackage, TarballFetch } from '../../lib/locked-package';
import { cachedPackage, installedPackage, lockedPackage, matchesIntegrity } from '../../lib/locked-package';
import { lakeNativePackage } from '../../lib/lake-function';

const root = mkdtempSync(join(tmpdir(), 'flock-locked-package-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A package tarball as the registry serves it (`package/…`), and its SRI. */
function tarball(content: string): { file: string; integrity: string } {
  const dir = mkdtempSync(join(root, 'tgz-'));
  mkdirSync(join(dir, 'package'));
  writeFileSync(join(dir, 'package', 'binding.node'), content);
  execFileSync('tar', ['-czf', join(dir, 'pkg.tgz'), '-C', dir, 'package']);
  const data = readFileSync(join(dir, 'pkg.tgz'));
  return {
    file: join(dir, 'pkg.tgz'),
    integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
  };
}

/** A fetch that copies `file` into the staging directory, counting its calls. */
function fetchOf(file: string): TarballFetch & { calls: number } {
  const fetch = Object.assign(
    (_pkg: LockedPackage, dir: string): string => {
      fetch.calls++;
      const target = join(dir, 'fetched.tgz');
      writeFileSync(target, readFileSync(file));
      return target;
    },
    { calls: 0 },
  );
  return fetch;
}

describe('packages of the lockfile for another platform', () => {
  it('reads the version and integrity the lockfile pins for the lake function’s binding', () => {
    const pkg = lockedPackage(join(__dirname, '../../package-lock.json'), lakeNativePackage);
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(pkg.integrity).toMatch(/^sha512-/);
    expect(() => lockedPackage(join(__dirname, '../../package-lock.json'), 'no-such-package')).toThrow(
      /no version and integrity/,
    );
  });

  it('checks SRI hashes', () => {
    const data = Buffer.from('binding');
    const sha512 = `sha512-${createHash('sha512').update(data).digest('base64')}`;
    expect(matchesIntegrity(data, sha512)).toBe(true);
    expect(matchesIntegrity(data, `sha1-abc ${sha512}`)).toBe(true);
    expect(matchesIntegrity(Buffer.from('other'), sha512)).toBe(false);
    expect(matchesIntegrity(data, 'md5-abc')).toBe(false);
  });

  it('fetches once, then serves the cache without the registry', () => {
    const { file, integrity } = tarball('arm64 build');
    const pkg = { name: '@scope/binding', version: '1.0.0', integrity };
    const cache = join(root, 'cache-once');
    const fetch = fetchOf(file);

    const first = cachedPackage(pkg, cache, fetch);
    const second = cachedPackage(pkg, cache, fetch);

    expect(first).toBe(second);
    expect(fetch.calls).toBe(1);
    expect(readFileSync(join(first, 'binding.node'), 'utf8')).toBe('arm64 build');
    // Nothing left of the staging directory.
    expect(readdirSync(cache)).toEqual(['@scope+binding@1.0.0']);
  });

  it('refuses a tarball that does not match the lockfile, and keeps nothing of it', () => {
    const { integrity } = tarball('what the lockfile pinned');
    const { file } = tarball('something else');
    const cache = join(root, 'cache-mismatch');

    expect(() =>
      cachedPackage({ name: 'binding', version: '1.0.0', integrity }, cache, fetchOf(file)),
    ).toThrow(/does not match the lockfile/);
    expect(readdirSync(cache)).toEqual([]);
  });

  it('refuses a cached tarball that was altered since', () => {
    const { file, integrity } = tarball('arm64 build');
    const pkg = { name: 'binding', version: '1.0.0', integrity };
    const cache = join(root, 'cache-altered');
    cachedPackage(pkg, cache, fetchOf(file));
    writeFileSync(join(cache, 'binding@1.0.0', 'package.tgz'), 'tampered');

    expect(() => cachedPackage(pkg, cache, fetchOf(file))).toThrow(/does not match/);
    expect(existsSync(join(cache, 'binding@1.0.0', 'package'))).toBe(true);
  });
});

describe('packages of the lockfile copied as installed', () => {
  /** A lockfile pinning `pinned` (version) and a node_modules holding `installed` (or nothing). */
  function install(pinned: string, installed: string | undefined): { lockfile: string; nodeModules: string } {
    const dir = mkdtempSync(join(root, 'installed-'));
    const lockfile = join(dir, 'package-lock.json');
    writeFileSync(
      lockfile,
      JSON.stringify({
        packages: { 'node_modules/@scope/parser': { version: pinned, integrity: 'sha512-x' } },
      }),
    );
    const nodeModules = join(dir, 'node_modules');
    if (installed !== undefined) {
      mkdirSync(join(nodeModules, '@scope', 'parser'), { recursive: true });
      writeFileSync(
        join(nodeModules, '@scope', 'parser', 'package.json'),
        JSON.stringify({ name: '@scope/parser', version: installed }),
      );
    }
    return { lockfile, nodeModules };
  }

  it('gives the installed directory when its version is the lockfile’s', () => {
    const { lockfile, nodeModules } = install('1.3.87', '1.3.87');
    expect(installedPackage(lockfile, nodeModules, '@scope/parser')).toBe(
      join(nodeModules, '@scope', 'parser'),
    );
  });

  it('refuses another installed version, or none', () => {
    const stale = install('1.3.87', '1.3.80');
    expect(() => installedPackage(stale.lockfile, stale.nodeModules, '@scope/parser')).toThrow(
      /1\.3\.80 is installed .* the lockfile pins 1\.3\.87/,
    );
    const missing = install('1.3.87', undefined);
    expect(() => installedPackage(missing.lockfile, missing.nodeModules, '@scope/parser')).toThrow(
      /is not installed/,
    );
  });
});
