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
import { cachedPackage, lockedPackage, matchesIntegrity } from '../../lib/locked-package';
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
