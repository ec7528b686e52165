import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { httpGroups } from '../functions/routes';
import { environmentWith, envNames, numberSetting } from '../functions/shared/config';
import { functionBundling } from '../lib/bundling';
import { report, round } from './lib';

/**
 * Cold start: each function's bundle, built by esbuild with the stack's own settings (lib/bundling.ts),
 * its size, and the time a fresh Node.js process takes to load it (`require`, with source maps on as
 * in Lambda), median of several processes. Targets: bundle ≤ 1 MB, module load ≤ 150 ms.
 */
const functions = [...httpGroups, 'consumer'] as const;
const loads = numberSetting('BENCH_LOADS', 7);

/** What the functions read at cold start: names only, nothing is called while loading. */
const environment = environmentWith({
  AWS_REGION: 'us-east-1',
  [envNames.eventsTable]: 'flock-events',
  [envNames.singleTable]: 'flock-main',
  [envNames.ingestQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/000000000000/flock-ingest',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});

const loadScript = `
const started = performance.now();
require(process.argv[1]);
process.stdout.write(String(performance.now() - started));
`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const outdir = mkdtempSync(join(tmpdir(), 'flock-bundles-'));
  const figures: Record<string, string> = {};
  let largest = 0;
  let slowest = 0;
  for (const name of functions) {
    const file = join(outdir, name, 'index.js');
    await build({
      entryPoints: [join(__dirname, '../functions', name, 'handler.ts')],
      outfile: file,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: functionBundling.target,
      minify: functionBundling.minify,
      sourcemap: functionBundling.sourceMap,
      sourcesContent: functionBundling.sourcesContent,
      mainFields: [...functionBundling.mainFields],
      logLevel: 'error',
    });
    const bytes = statSync(file).size;
    const mapBytes = statSync(`${file}.map`).size;
    const times = Array.from({ length: loads }, () =>
      Number(
        execFileSync(process.execPath, ['--enable-source-maps', '-e', loadScript, file], {
          env: environment,
          encoding: 'utf8',
        }),
      ),
    );
    const loadMs = median(times);
    largest = Math.max(largest, bytes);
    slowest = Math.max(slowest, loadMs);
    figures[name] =
      `${round(bytes / 1024, 0)} KB (source map ${round(mapBytes / 1024, 0)} KB), load ${round(loadMs, 1)} ms`;
  }
  rmSync(outdir, { recursive: true, force: true });
  report(
    'cold start: bundle size and module load per function',
    { ...figures, 'largest bundle MB': round(largest / 1024 / 1024), 'slowest load ms': round(slowest, 1) },
    'bundle ≤ 1 MB, load ≤ 150 ms',
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
