import { App, Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlockFunction, handlerEntry } from '../../lib/flock-function';
import { functionPackages } from '../../lib/function-packages';
import { lockedPackage } from '../../lib/locked-package';

const lockfile = join(__dirname, '../../package-lock.json');

/**
 * The consumer's S3 client (a GeoIP database in S3 only), bundled for real as the stack packages it
 * (lib/function-packages.ts): not in the function's bundle, which imports it by name, but bundled on
 * its own into the asset's node_modules, where that `import()` finds it. Its code is recognised by the
 * service's namespace, which every command's schema carries.
 */
const fn = 'consumer';
const pkg = '@aws-sdk/client-s3';
const service = 'com.amazonaws.s3';
const used = ['S3Client', 'GetObjectCommand'];

describe('packages bundled on their own beside a function', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'flock-separate-packages-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it("the consumer's S3 client is beside its bundle, not in it", () => {
    // GIVEN the function with its packages, in a stack of its own
    const stack = new Stack(new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } }), 'Asset');
    const flockFunction = new FlockFunction(stack, 'Function', {
      entry: handlerEntry(fn),
      serviceName: fn,
      ...functionPackages[fn],
    });

    // WHEN its asset is staged
    const assetPath = (flockFunction.function.node.defaultChild as CfnFunction).getMetadata(
      'aws:asset:path',
    ) as string;
    const asset = join(outdir, assetPath);
    const bundleFile = join(asset, 'index.js');
    const bundle = readFileSync(bundleFile, 'utf8');

    // THEN the bundle imports the package by name and holds none of its commands (booleans: a failure
    // would print the whole bundle)
    expect(bundle.includes(`import("${pkg}")`)).toBe(true);
    expect(bundle.includes(service)).toBe(false);
    // AND the asset's node_modules holds it at the lockfile's version, its commands inside
    const packageDir = join(asset, 'node_modules', pkg);
    expect(JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))).toMatchObject({
      name: pkg,
      version: lockedPackage(lockfile, pkg).version,
    });
    const separate = readFileSync(join(packageDir, 'index.js'), 'utf8');
    expect(separate.includes(service)).toBe(true);
    // AND its credentials come from the environment, as the function's own clients' do
    expect(separate.includes('AWS_SECRET_ACCESS_KEY')).toBe(true);
    expect(separate.includes('AssumeRoleWithWebIdentity')).toBe(false);
    // AND an `import()` from the asset's root, as the bundle's, finds it with what the code uses
    const imported = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(pkg)}); process.stdout.write(JSON.stringify(${JSON.stringify(used)}.map((name) => typeof m[name])));`,
      ],
      { cwd: asset, encoding: 'utf8' },
    );
    expect(JSON.parse(imported)).toEqual(used.map(() => 'function'));
  });
});
