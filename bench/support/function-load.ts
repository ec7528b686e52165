import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { envNames } from '../../functions/shared/config';
import { environmentWith } from '../../bin/environment';
import { bundlePackage, functionBuildOptions } from '../../lib/bundling';
import { functionPackages, hogqlParserPackage } from '../../lib/function-packages';
import { installedPackage, lockedPackage } from '../../lib/locked-package';

/**
 * A function's cold start as bench/cold-start.ts measures it (and bench/query.ts for the query
 * function): its bundle built and staged as the stack deploys it, loaded in a fresh Node.js process.
 */

const functionsDir = join(__dirname, '../../functions');
const projectRoot = join(__dirname, '../..');

const queueUrl = (name: string): string => `https://sqs.us-east-1.amazonaws.com/000000000000/${name}`;

/**
 * Every table and queue a function can be given (each reads its own at cold start and refuses to
 * load without it): names only, nothing is called while loading.
 */
export const environment = environmentWith({
  AWS_REGION: 'us-east-1',
  [envNames.eventsTable]: 'flock-events',
  [envNames.singleTable]: 'flock-main',
  [envNames.ingestQueueUrl]: queueUrl('flock-ingest'),
  [envNames.ingestDlqUrl]: queueUrl('flock-ingest-dlq'),
  [envNames.exportsQueueUrl]: queueUrl('flock-exports'),
  [envNames.exportsDlqUrl]: queueUrl('flock-exports-dlq'),
  [envNames.lakeQueueUrl]: queueUrl('flock-lake'),
  [envNames.lakeBucket]: 'flock-lake',
  [envNames.queryRunsQueueUrl]: queueUrl('flock-query-runs'),
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // Where a bundle outside the project finds the native packages left out of it (nativePackages).
  NODE_PATH: join(projectRoot, 'node_modules'),
});

/**
 * Run in a fresh process: loads the bundle named by its first argument, then, when a second names the
 * parser package, loads the parser as the bundle would find it and parses once; prints wall and CPU
 * milliseconds of each.
 */
const loadScript = `
const measure = async (run) => {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const wallMs = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (user + system) / 1000 };
};
(async () => {
  const [bundle, parser] = process.argv.slice(1);
  const load = await measure(() => require(bundle));
  const parserLoad = parser
    ? await measure(async () =>
        (await require('node:module').createRequire(bundle)(parser).default()).parseSelect('select 1'),
      )
    : undefined;
  process.stdout.write(JSON.stringify({ ...load, parser: parserLoad }));
})();
`;

export interface Load {
  readonly wallMs: number;
  readonly cpuMs: number;
  /** The HogQL parser's first load and parse, after the bundle's. */
  readonly parser?: { readonly wallMs: number; readonly cpuMs: number };
}

export function loadOnce(file: string, parser: string | undefined): Load {
  const output = execFileSync(process.execPath, ['-e', loadScript, file, ...(parser ? [parser] : [])], {
    env: environment,
    encoding: 'utf8',
  });
  return JSON.parse(output) as Load;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Builds one function's bundle as the stack does, with the packages its asset carries beside it; its path. */
export async function bundle(name: string, outdir: string): Promise<string> {
  const file = join(outdir, name, 'index.js');
  const lockfile = join(projectRoot, 'package-lock.json');
  const packages = functionPackages[name] ?? {};
  const installed = packages.installedPackages ?? [];
  const separate = packages.separatelyBundledPackages ?? [];
  await build({
    ...functionBuildOptions(join(functionsDir, name, 'handler.ts'), file),
    external: [...(packages.externalModules ?? []), ...installed, ...separate],
  });
  for (const pkg of installed)
    cpSync(
      installedPackage(lockfile, join(projectRoot, 'node_modules'), pkg),
      join(outdir, name, 'node_modules', pkg),
      { recursive: true },
    );
  for (const pkg of separate)
    bundlePackage(pkg, lockedPackage(lockfile, pkg).version, join(outdir, name, 'node_modules', pkg));
  return file;
}

/** The parser package when the function's asset carries it (its first load is measured). */
export const parserOf = (name: string): string | undefined =>
  functionPackages[name]?.installedPackages?.includes(hogqlParserPackage) ? hogqlParserPackage : undefined;
