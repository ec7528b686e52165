import { App, Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlockFunction, handlerEntry } from '../../lib/flock-function';
import { duckDbJavaScriptPackages, functionPackages, hogqlParserPackage } from '../../lib/function-packages';
import { lakeNativePackage } from '../../lib/lake-function';
import { lockedPackage } from '../../lib/locked-package';

/**
 * The start of a WebAssembly module, `\0asm`, as the parser's JavaScript inlines the module (a string
 * of its bytes) and as esbuild writes that string into a bundle (escaped).
 */
const wasmMagic = '\0asm';
const escapedWasmMagic = '\\0asm';

const lockfile = join(__dirname, '../../package-lock.json');
const manifestOf = (dir: string): unknown => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/**
 * The query function's asset, bundled for real as the stack packages it (lib/function-packages.ts):
 * PostHog's HogQL parser and DuckDB's JavaScript API are not in the bundle but installed beside it,
 * at the lockfile's versions, with DuckDB's linux-arm64 binding.
 */
describe('the query function asset', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'flock-query-asset-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('carries the HogQL parser and DuckDB beside a bundle that requires them and does not hold them', async () => {
    // GIVEN the query function's entry with the query function's packages, in a stack of its own
    const stack = new Stack(
      new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } }),
      'QueryAsset',
    );
    const fn = new FlockFunction(stack, 'Query', {
      entry: handlerEntry('query'),
      serviceName: 'query',
      ...functionPackages.query,
    });

    // WHEN its asset is staged
    const assetPath = (fn.function.node.defaultChild as CfnFunction).getMetadata('aws:asset:path') as string;
    const asset = join(outdir, assetPath);

    // THEN the bundle is under 1 MB, without the parser's WebAssembly, and requires the parser by name
    const bundleFile = join(asset, 'index.js');
    const bundle = readFileSync(bundleFile, 'utf8');
    expect(statSync(bundleFile).size).toBeLessThanOrEqual(1024 * 1024);
    expect(bundle).not.toContain(wasmMagic);
    expect(bundle).not.toContain(escapedWasmMagic);
    expect(bundle).toContain(`require("${hogqlParserPackage}")`);
    expect(bundle).toContain('import("@duckdb/node-api")');
    // AND the asset's node_modules holds each at the lockfile's version, and the arm64 binding
    for (const name of [hogqlParserPackage, ...duckDbJavaScriptPackages, lakeNativePackage])
      expect(manifestOf(join(asset, 'node_modules', name))).toMatchObject({
        name,
        version: lockedPackage(lockfile, name).version,
      });
    const parserDir = join(asset, 'node_modules', hogqlParserPackage);
    expect(readFileSync(join(parserDir, 'dist', 'hogql_parser_wasm.cjs'), 'utf8')).toContain(wasmMagic);
    // AND that copy parses HogQL
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const load = (require(parserDir) as { default: () => Promise<{ parseSelect(text: string): string }> })
      .default;
    const parsed = JSON.parse((await load()).parseSelect('select event from events')) as { node?: string };
    expect(parsed.node).toBe('SelectQuery');
  });
});
