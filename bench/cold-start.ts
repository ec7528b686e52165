import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { envNames } from '../functions/shared/config';
import { environmentWith } from '../bin/environment';
import { functionBundling } from '../lib/bundling';
import { benchSetting, report, round } from './lib';

/**
 * Cold start: each function's bundle (every `functions/<name>/handler.ts`: the HTTP groups, the
 * consumer, exports and cohort calculation), built by esbuild with the stack's own settings
 * (lib/bundling.ts), its size, and the time a fresh Node.js process takes to load it (`require`,
 * with source maps on as in Lambda), median of several processes. Targets: bundle ≤ 1 MB, module
 * load ≤ 150 ms.
 */
const functionsDir = join(__dirname, '../functions');
const functions = readdirSync(functionsDir)
  .filter((name) => existsSync(join(functionsDir, name, 'handler.ts')))
  .sort();
const loads = benchSetting('BENCH_LOADS', 7, 1);
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
      entryPoints: [join(functionsDir, name, 'handler.ts')],
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
