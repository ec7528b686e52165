import { App, Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { existsSync, mkdtempSync, openSync, readFileSync, readSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lakeFunction, lakeNativePackage } from '../../lib/lake-function';

/** The ELF machine of a shared object: 0xB7 is AArch64, 0x3E x86-64. */
function elfMachine(file: string): number {
  const header = Buffer.alloc(20);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  expect(header.subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  return header.readUInt16LE(18);
}

const aarch64 = 0xb7;

/**
 * The lake function's asset, bundled for real (the other CDK tests synthesize with bundling off):
 * DuckDB's binding for Lambda's linux-arm64 beside the bundle, where the bundle requires it. The first
 * run fetches the binding from the registry (verified against the lockfile), later runs read the cache.
 */
describe('the lake function asset', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'flock-lake-asset-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('carries DuckDB’s linux-arm64 binding where the bundle requires it', () => {
    // GIVEN the lake function in a stack of its own, bundled
    const stack = new Stack(
      new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } }),
      'LakeAsset',
    );
    const fn = lakeFunction(stack, 'Lake', {});

    // WHEN its asset is staged
    const assetPath = (fn.function.node.defaultChild as CfnFunction).getMetadata('aws:asset:path') as string;
    const asset = join(outdir, assetPath);

    // THEN the binding is the arm64 build, with its shared library
    const binding = join(asset, 'node_modules', lakeNativePackage);
    expect(elfMachine(join(binding, 'duckdb.node'))).toBe(aarch64);
    expect(elfMachine(join(binding, 'libduckdb.so'))).toBe(aarch64);
    expect(JSON.parse(readFileSync(join(binding, 'package.json'), 'utf8'))).toMatchObject({
      name: lakeNativePackage,
      cpu: ['arm64'],
    });
    // The bundle holds @duckdb/node-api and requires the binding from node_modules, not from itself.
    const bundle = readFileSync(join(asset, 'index.js'), 'utf8');
    expect(bundle).toContain(`require("${lakeNativePackage}/duckdb.node")`);
    expect(bundle).toContain('DuckDBInstance');
    // No other platform's build went in.
    expect(existsSync(join(asset, 'node_modules', '@duckdb', 'node-bindings-linux-x64'))).toBe(false);
  });
});
