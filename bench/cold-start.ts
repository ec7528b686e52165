import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchSetting, report, round } from './lib';
import { type Load, bundle, loadOnce, median, parserOf } from './support/function-load';

/**
 * Cold start: each function's bundle (every `functions/<name>/handler.ts`: the HTTP groups, the
 * consumer, exports and cohort calculation), built by esbuild with the stack's own settings
 * (lib/bundling.ts), its size, and the time a fresh Node.js process takes to load it (`require`,
 * with no Node.js options, as Lambda runs it: lib/flock-function.ts sets no NODE_OPTIONS, the bundle
 * maps its own stack traces, functions/shared/source-maps.ts). Targets: bundle ≤ 1 MB, module load
 * ≤ 150 ms.
 *
 * Each bundle is built and staged as the function is deployed (lib/function-packages.ts): the packages
 * its asset carries installed (the query function's HogQL parser and DuckDB API) are left out of the
 * bundle and copied beside it, at the lockfile's version; native bindings (built for Lambda's
 * platform in the asset) resolve to this machine's build. A function whose asset carries the HogQL
 * parser also has the parser's first load measured, in the same process right after the bundle's: its
 * `require`, WebAssembly instantiation and one parse, what the first HogQL query of a container pays.
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

const loadAverage = (): string => `${round(loadavg()[0]!, 1)}`;

async function main(): Promise<void> {
  const outdir = mkdtempSync(join(tmpdir(), 'flock-bundles-'));
  const files = new Map<string, string>();
  for (const name of functions) files.set(name, await bundle(name, outdir));
  const loadAverageBefore = loadAverage();
  for (let pass = 0; pass < warmups; pass++) for (const [name, file] of files) loadOnce(file, parserOf(name));
  const measured = new Map<string, Load[]>(functions.map((name) => [name, []]));
  for (let pass = 0; pass < loads; pass++)
    for (const [name, file] of files) measured.get(name)!.push(loadOnce(file, parserOf(name)));
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
    const parserLoads = measured.get(name)!.flatMap((load) => (load.parser ? [load.parser] : []));
    if (parserLoads.length > 0)
      figures[`${name}: HogQL parser's first load`] =
        `${round(median(parserLoads.map((load) => load.wallMs)), 1)} ms, ` +
        `CPU ${round(median(parserLoads.map((load) => load.cpuMs)), 1)} ms (paid by the first HogQL query)`;
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
