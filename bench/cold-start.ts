import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { envNames } from '../functions/shared/config';
import { environmentWith } from '../bin/environment';
import { functionBuildOptions } from '../lib/bundling';
import { benchSetting, report, round } from './lib';

/**
 * Cold start: each function's bundle (every `functions/<name>/handler.ts`: the HTTP groups, the
 * consumer, exports and cohort calculation), built by esbuild with the stack's own settings
 * (lib/bundling.ts), its size, and the time a fresh Node.js process takes to load it (`require`,
 * with no Node.js options, as Lambda runs it: lib/flock-function.ts sets no NODE_OPTIONS, the bundle
 * maps its own stack traces, functions/shared/source-maps.ts). Targets: bundle ≤ 1 MB, module load
 * ≤ 150 ms.
 *
 * One method for every function, so that a busy machine cannot favour one over another:
 * - one unmeasured load of each bundle first (its file and Node's own in the page cache);
 * - then `BENCH_LOADS` rounds, each loading every function once in turn (not all of one function's
 *   loads back to back), each load in a fresh process;
 * - per function the median wall time of its loads (the target's figure), their range, and the
 *   median CPU time of the loading process (user + system, every thread: what the load costs however
 *   busy the machine, where the wall time also counts waiting for a core);
 * - the machine's load average before and after, to tell an idle run from a loaded one.
 */
const functionsDir = join(__dirname, '../functions');
const functions = readdirSync(functionsDir)
  .filter((name) => existsSync(join(functionsDir, name, 'handler.ts')))
  .sort();
const loads = benchSetting('BENCH_LOADS', 7, 1);
const warmups = benchSetting('BENCH_WARMUPS', 1, 0);
const maxBundleBytes = 1024 * 1024;
const maxLoadMs = 150;

const queueUrl = (name: string): string => `https://sqs.us-east-1.amazonaws.com/000000000000/${name}`;

/**
 * Every table and queue a function can be given (each reads its own at cold start and refuses to
 * load without it): names only, nothing is called while loading.
 */
const environment = environmentWith({
  AWS_REGION: 'us-east-1',
  [envNames.eventsTable]: 'flock-events',
  [envNames.singleTable]: 'flock-main',
  [envNames.ingestQueueUrl]: queueUrl('flock-ingest'),
  [envNames.ingestDlqUrl]: queueUrl('flock-ingest-dlq'),
  [envNames.exportsQueueUrl]: queueUrl('flock-exports'),
  [envNames.exportsDlqUrl]: queueUrl('flock-exports-dlq'),
  [envNames.lakeQueueUrl]: queueUrl('flock-lake'),
  [envNames.lakeBucket]: 'flock-lake',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // Where a bundle outside the project finds the native packages left out of it (nativePackages).
  NODE_PATH: join(__dirname, '../node_modules'),
});

/** Run in a fresh process: loads the bundle named by its argument, prints wall and CPU milliseconds. */
const loadScript = `
const cpu = process.cpuUsage();
const started = performance.now();
require(process.argv[1]);
const wallMs = performance.now() - started;
const { user, system } = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({ wallMs, cpuMs: (user + system) / 1000 }));
`;

interface Load {
  readonly wallMs: number;
  readonly cpuMs: number;
}

function loadOnce(file: string): Load {
  const output = execFileSync(process.execPath, ['-e', loadScript, file], {
    env: environment,
    encoding: 'utf8',
  });
  return JSON.parse(output) as Load;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Packages with native binaries, which esbuild cannot bundle: a function that uses one ships it
 * installed beside its bundle (the lake function's DuckDB), so its load resolves it from
 * node_modules, as it would from the asset's.
 */
const nativePackages = ['@duckdb/node-api'];

/** Builds one function's bundle as the stack does; its path. */
async function bundle(name: string, outdir: string): Promise<string> {
  const file = join(outdir, name, 'index.js');
  await build({
    ...functionBuildOptions(join(functionsDir, name, 'handler.ts'), file),
    external: nativePackages,
  });
  return file;
}

const loadAverage = (): string => `${round(loadavg()[0]!, 1)}`;

async function main(): Promise<void> {
  const outdir = mkdtempSync(join(tmpdir(), 'flock-bundles-'));
  const files = new Map<string, string>();
  for (const name of functions) files.set(name, await bundle(name, outdir));
  const loadAverageBefore = loadAverage();
  for (let pass = 0; pass < warmups; pass++) for (const file of files.values()) loadOnce(file);
  const measured = new Map<string, Load[]>(functions.map((name) => [name, []]));
  for (let pass = 0; pass < loads; pass++)
    for (const [name, file] of files) measured.get(name)!.push(loadOnce(file));
  const loadAverageAfter = loadAverage();

  const figures: Record<string, string> = {};
  let largest = 0;
  let slowest = 0;
  for (const [name, file] of files) {
    const bytes = statSync(file).size;
    const mapBytes = statSync(`${file}.map`).size;
    const walls = measured.get(name)!.map((load) => load.wallMs);
    const loadMs = median(walls);
    const cpuMs = median(measured.get(name)!.map((load) => load.cpuMs));
    largest = Math.max(largest, bytes);
    slowest = Math.max(slowest, loadMs);
    figures[name] =
      `${round(bytes / 1024, 0)} KB (map ${round(mapBytes / 1024, 0)} KB), load ${round(loadMs, 1)} ms ` +
      `(${round(Math.min(...walls), 0)}–${round(Math.max(...walls), 0)}), CPU ${round(cpuMs, 1)} ms`;
  }
  rmSync(outdir, { recursive: true, force: true });
  report(
    'cold start: bundle size and module load per function',
    {
      ...figures,
      loads: `${loads} per function (median), interleaved, after ${warmups} unmeasured`,
      'load average (1 min)': `${loadAverageBefore} before, ${loadAverageAfter} after`,
      'largest bundle MB': round(largest / 1024 / 1024),
      'slowest load ms': round(slowest, 1),
    },
    `every function: bundle ≤ 1 MB, load ≤ ${maxLoadMs} ms`,
    {
      figure: `${functions.length} functions: largest bundle ${round(largest / 1024 / 1024)} MB, slowest load ${round(slowest, 0)} ms`,
      met: largest <= maxBundleBytes && slowest <= maxLoadMs,
    },
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
