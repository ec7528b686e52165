import type { CfnElement, Stack } from 'aws-cdk-lib';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import type { HttpGroup } from '../../functions/routes';
import type { buildApp as BuildApp } from '../../lib/app';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

/**
 * A CDK app for an assertion test: bundling off, synthesized into a directory of its own that is
 * removed when the test file ends (CDK's default outdir is a new `cdk.out*` under /tmp per app, which
 * nothing removes).
 *
 * CDK's built-in CloudFormation validation is off unless asked for: at a process's first synthesis
 * it instantiates its WebAssembly rule engine, about 5 s of CPU, and jest loads aws-cdk-lib afresh
 * for every test file. It fails no synthesis (its findings are warnings unless the feature flag
 * `@aws-cdk/core:validateAgainstDefaultRules` is set), so it changes no other test's outcome;
 * `nag.test.ts` synthesizes the whole app with it, as `cdk synth` does, and asserts that its report
 * is empty.
 */
const outdirs: string[] = [];
// Registered when a test file imports this module (jest loads it afresh for each file).
afterAll(() => {
  for (const outdir of outdirs.splice(0)) rmSync(outdir, { recursive: true, force: true });
});

export function testApp(
  options: { context?: Record<string, unknown>; cloudFormationValidation?: boolean } = {},
): { app: App; outdir: string } {
  const outdir = mkdtempSync(join(tmpdir(), 'flock-cdk-test-'));
  outdirs.push(outdir);
  const context = { ...options.context, 'aws:cdk:bundling-stacks': [] };
  const builtinCloudFormationValidation = options.cloudFormationValidation ?? false;
  return { app: new App({ outdir, context, builtinCloudFormationValidation }), outdir };
}

/** Logical ids of the constructs the tests look resources up by, taken from the app's constructs. */
export interface AppIds {
  /** The stateful stack's tables, queues and lake buckets. */
  readonly stateful: Readonly<Record<StatefulResource, string>>;
  /** Each function of the stateless stack, by the service name it logs under (`capture`, `consumer`, …). */
  readonly functions: Readonly<Record<FunctionName, string>>;
  /** The stateless stack's alarm on the lake's dead-letter queue. */
  readonly lakeDeadLetterAlarm: string;
}

/** The stateless stack's functions, by the service name each logs under. */
type FunctionName = HttpGroup | 'consumer' | 'cohort_calculation' | 'exports' | 'lake' | 'lake_compaction';

type StatefulResource =
  | 'eventsTable'
  | 'singleTable'
  | 'ingestQueue'
  | 'deadLetterQueue'
  | 'exportsQueue'
  | 'exportsDeadLetterQueue'
  | 'lakeBucket'
  | 'lakeResultsBucket'
  | 'lakeAccessLogsBucket';

/** The Flock app's stacks as `buildApp` synthesizes them with one context, and the ids to read them by. */
export interface SynthesizedApp {
  readonly stateful: Template;
  readonly stateless: Template;
  readonly ids: AppIds;
}

interface CachedApp {
  readonly stateful: Record<string, unknown>;
  readonly stateless: Record<string, unknown>;
  readonly ids: AppIds;
}

const projectRoot = join(__dirname, '..', '..');
/**
 * What a synthesis of the app reads: the stacks' code, the functions' settings and entry files they
 * import or point at, the locked packages (aws-cdk-lib and cdk-nag among them) and this helper.
 */
const appSources = ['lib', 'functions', 'cdk.json', 'package-lock.json', 'test/helpers/cdk-app.ts'];
const cacheDir = join(tmpdir(), 'flock-cdk-templates');
/** A worker waits this long for another one's synthesis of the same app before doing its own. */
const lockWaitMs = 180_000;
/** Cached apps untouched this long are removed when another is written. */
const keepMs = 7 * 24 * 3_600_000;

/**
 * A digest of every file under `paths` (relative to `root`), names and contents, in a stable order, and
 * of `root` itself: a template names files by absolute path (a function's asset hash, with bundling
 * off, covers its esbuild command, which does), so two clones of one commit synthesize different
 * templates and must not share a cache entry.
 */
export function sourcesKey(root: string, paths: readonly string[], extra = ''): string {
  const hash = createHash('sha256').update(resolve(root)).update('\0').update(extra);
  const files = paths.flatMap((path) =>
    statSync(join(root, path)).isDirectory()
      ? readdirSync(join(root, path), { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => relative(root, join(entry.parentPath, entry.name)))
      : [path],
  );
  for (const file of files.sort()) hash.update(`\0${file}\0`).update(readFileSync(join(root, file)));
  return hash.digest('hex');
}

const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

function synthesize(context: Record<string, unknown>): CachedApp {
  // Loaded on a miss only: a file served from the cache does not construct the app.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { buildApp } = require('../../lib/app') as { buildApp: typeof BuildApp };
  const { stateful, stateless } = buildApp(testApp({ context }).app);
  const id = (stack: Stack, construct: IConstruct): string =>
    stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const functions = [
    ...Object.values(stateless.httpFunctions),
    stateless.consumer,
    stateless.cohortCalculation,
    stateless.exports,
    stateless.lake,
    stateless.lakeCompaction.function,
  ];
  return {
    // Template.fromStack synthesizes the app (cdk-nag's checks included) and reads the stack's template.
    stateful: Template.fromStack(stateful).toJSON(),
    stateless: Template.fromStack(stateless).toJSON(),
    ids: {
      stateful: {
        eventsTable: id(stateful, stateful.eventsTable),
        singleTable: id(stateful, stateful.singleTable),
        ingestQueue: id(stateful, stateful.ingestQueue),
        deadLetterQueue: id(stateful, stateful.deadLetterQueue),
        exportsQueue: id(stateful, stateful.exportsQueue),
        exportsDeadLetterQueue: id(stateful, stateful.exportsDeadLetterQueue),
        lakeBucket: id(stateful, stateful.lake.bucket),
        lakeResultsBucket: id(stateful, stateful.lake.resultsBucket),
        lakeAccessLogsBucket: id(stateful, stateful.lake.accessLogsBucket),
      },
      functions: Object.fromEntries(
        functions.map((fn) => [fn.serviceName, id(stateless, fn.function)]),
      ) as Record<FunctionName, string>,
      lakeDeadLetterAlarm: id(stateless, stateless.alarms.lakeDeadLetterAlarm),
    },
  };
}

/** Removes cached apps no run has written for a week (their sources have changed since). */
function prune(): void {
  for (const name of readdirSync(cacheDir))
    if (Date.now() - statSync(join(cacheDir, name)).mtimeMs > keepMs)
      rmSync(join(cacheDir, name), { force: true });
}

/**
 * The Flock app built by `buildApp` with `context` (bundling off, as `testApp()`), synthesized once for
 * every test file of every worker and run while its sources stay the same: jest loads each test file
 * in a module registry of its own, so the templates are kept in a file under the system's temporary
 * directory, named by a digest of the app's sources (`sourcesKey`), the context and the environment
 * `buildApp` reads. The first file to need them synthesizes them (the others wait for it); a change to
 * any of those sources names another file. `nag.test.ts` compares them with a fresh synthesis.
 */
export function synthesizedApp(context: Record<string, unknown> = {}): SynthesizedApp {
  const environment = [process.env.CDK_DEFAULT_ACCOUNT, process.env.CDK_DEFAULT_REGION];
  const key = sourcesKey(projectRoot, appSources, JSON.stringify({ context, environment }));
  const file = join(cacheDir, `${key}.json`);
  const lock = `${file}.lock`;
  mkdirSync(cacheDir, { recursive: true });
  for (const deadline = Date.now() + lockWaitMs; !existsSync(file) && Date.now() < deadline;) {
    try {
      closeSync(openSync(lock, 'wx'));
    } catch {
      // Another worker is synthesizing it; a lock older than the wait was left by a process that died.
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > lockWaitMs)
        rmSync(lock, { force: true });
      else sleepSync(200);
      continue;
    }
    try {
      const app = synthesize(context);
      writeFileSync(`${file}.${process.pid}`, JSON.stringify(app));
      renameSync(`${file}.${process.pid}`, file);
      prune();
    } finally {
      rmSync(lock, { force: true });
    }
  }
  const cached = (
    existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : synthesize(context)
  ) as CachedApp;
  return {
    stateful: Template.fromJSON(cached.stateful),
    stateless: Template.fromJSON(cached.stateless),
    ids: cached.ids,
  };
}
