import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { installSourceMappedStacks } from '../../../functions/shared/source-maps';
import { functionBuildOptions } from '../../../lib/bundling';

/**
 * A function's bundle maps its stack traces to its sources without Node.js's `--enable-source-maps`
 * (which parses the map at every cold start): the bundle is built as the stack builds it and loaded
 * in a fresh process with no flags, as Lambda runs it.
 */
const fixture = join(__dirname, '../../fixtures/stack-entry.ts');
let outdir: string;
let bundleFile: string;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'flock-stacks-'));
  bundleFile = join(outdir, 'index.js');
  await build(functionBuildOptions(fixture, bundleFile));
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** Runs `script` with the bundle's path as its argument; what it writes (the logger's errors go to stderr). */
function runBundle(script: string, flags: readonly string[] = []): string {
  const run = spawnSync(process.execPath, [...flags, '-e', script, bundleFile], {
    // The tests silence the logger; the bundle logs as on Lambda.
    env: { ...process.env, NODE_OPTIONS: '', POWERTOOLS_LOG_LEVEL: 'INFO' },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`the bundle failed: ${run.stderr}`);
  return run.stdout + run.stderr;
}

const stackOfThrow = `
try { require(process.argv[1]).callFailInside(); } catch (error) { process.stdout.write(error.stack); }
`;

describe('stack traces of a bundled function', () => {
  it('name the source file, line and column of each frame in the bundle, and the function its caller names', () => {
    // WHEN an error thrown inside the bundle formats its stack
    const lines = runBundle(stackOfThrow).split('\n');

    // THEN the frames point at the fixture's lines, not at the minified bundle
    expect(lines[0]).toBe('Error: thrown inside the bundle');
    expect(lines[1]).toBe(`    at failInside (${fixture}:5:9)`);
    // (called from outside the bundle: no name to map, the bundle's own)
    expect(lines[2]).toMatch(new RegExp(` \\(${fixture}:9:10\\)$`));
    expect(lines.join('\n')).not.toContain(bundleFile);
  });

  it('reach the logs: the logger writes the mapped stack and its location', () => {
    // WHEN the bundle logs an error through the functions' logger
    const line = runBundle(`require(process.argv[1]).logFailure();`).trim().split('\n').at(-1)!;
    const logged = JSON.parse(line) as { error: { location: string; stack: string } };

    // THEN
    expect(logged.error.location).toBe(`${fixture}:5`);
    expect(logged.error.stack).toContain(`at failInside (${fixture}:5:9)`);
  });

  it('are left to Node.js when it maps them itself (--enable-source-maps)', () => {
    // WHEN
    const lines = runBundle(stackOfThrow, ['--enable-source-maps']).split('\n');

    // THEN Node.js's own mapping, to the same line
    expect(lines[1]).toContain(`${fixture}:5:9`);
  });

  it('keep the bundle positions when its map is missing', () => {
    // GIVEN a bundle without its map
    rmSync(`${bundleFile}.map`);

    // WHEN
    const lines = runBundle(stackOfThrow).split('\n');

    // THEN nothing is installed: V8's own trace
    expect(lines[1]).toContain(`${bundleFile}:`);
  });
});

describe('code run from its TypeScript sources (local server, tests, tools)', () => {
  it('keeps its stack traces as they are: no map beside the source file', () => {
    // GIVEN the process's own formatter
    const formatter = Error.prepareStackTrace;

    // WHEN
    const installed = installSourceMappedStacks();

    // THEN
    expect(installed).toBe(false);
    expect(Error.prepareStackTrace).toBe(formatter);
  });
});
