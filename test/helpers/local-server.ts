import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Credentials, LocalEndpoints } from '../../bin/local/server';
import { envNames } from '../../functions/shared/config';
import type { CallerLimits } from '../../functions/shared/http/caller-limits';
import { newOrganization } from './organizations';
import { newProject } from './projects';
import type { SharedServerInfo } from './shared-servers';

export interface LocalServer {
  readonly credentials: Credentials;
  readonly endpoints: LocalEndpoints;
  readonly dataDir: string;
  /** The process the test started, which `stop()` signals. */
  readonly pid: number;
  /** Everything the server printed so far. */
  output(): string;
  /** Ctrl-C, then wait for the process to exit; resolves with its exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  /** Seconds before a failed message is retried (the queue's own visibility timeout stays). @default 1 */
  readonly retryDelaySeconds?: number;
  /** Keep state on disk in `dataDir` instead of memory. */
  readonly persistent?: boolean;
  readonly dataDir?: string;
  /**
   * How often the server runs the cohort calculation schedule (`--cohort-interval`); 0 never does.
   * Every run invokes the function, which starts its container (a cold start) and then queries the
   * tables each time (about 0.85 s of CPU a minute of the server's life at 1 s): a test that waits for
   * calculated cohorts asks for it. @default 0
   */
  readonly cohortIntervalSeconds?: number;
  /**
   * How often the server runs pending plugin jobs, historical exports (`--jobs-interval`); 0 never
   * does, as for the cohort calculation: a test that waits for a job asks for it. @default 0
   */
  readonly jobsIntervalSeconds?: number;
  /**
   * The exports queue's batching window (`--exports-batching-window`); the stack's is 10 s, which
   * every export a test awaits would wait out. @default 1
   */
  readonly exportsBatchingWindowSeconds?: number;
  /**
   * The ingest queue's batching window (`--ingest-batching-window`), the consumer's: a test that waits
   * out a message's five failed receives gathers each for less than the stack's 2 s.
   * @default the stack's, 2
   */
  readonly ingestBatchingWindowSeconds?: number;
  /**
   * What one export config's uploads may take per invocation (`FLOCK_EXPORT_BUDGET_MS`), in
   * seconds: a hanging destination then fails sooner. @default the function's own, 45
   */
  readonly exportBudgetSeconds?: number;
  /**
   * How often the server writes the lake (`--lake-interval`); 0 never does (the lake queue still
   * fills), so the tests that do not read the lake do not pay for its runs. @default 0
   */
  readonly lakeIntervalSeconds?: number;
  /** How often the server compacts the lake (`--lake-compact-interval`); 0 never. @default 0 */
  readonly lakeCompactIntervalSeconds?: number;
  /** Extra environment variables for the server and its functions (settings such as limits). */
  readonly env?: Readonly<Record<string, string>>;
  /** Modules every function container loads before its handler (`--function-preload`): faults to inject. */
  readonly functionPreload?: readonly string[];
  /** Per-caller limits (`--rate-limit-*`, requests a minute); unset ones keep the server's defaults. */
  readonly callerLimits?: Partial<CallerLimits>;
  /** `--trusted-proxies`: reverse proxies whose X-Forwarded-For entries locate the client. */
  readonly trustedProxies?: number;
  /**
   * Run exactly what `npm start` runs (package.json's start script: the sources through tsx) rather
   * than the server's prebuilt bundle, for the tests of `npm start` itself. @default false
   */
  readonly npmStart?: boolean;
}

const callerLimitFlags: Readonly<Record<keyof CallerLimits, string>> = {
  perKey: '--rate-limit-per-key',
  perIpPublic: '--rate-limit-per-ip',
  perIpPrivate: '--rate-limit-per-ip-private',
};

const root = resolve(__dirname, '../..');

/**
 * The node arguments of `npm start` (package.json's `start` script, `node <args>`), so the tests of
 * `npm start` run the server exactly as users do. It must be one process: the tsx CLI would run the server in a child and
 * relay a Ctrl-C, and when the child does not acknowledge the signal within 60 ms (a busy event loop on
 * a loaded machine) it SIGKILLs the child and exits 130, losing the events being drained.
 */
function startScriptArgs(): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const [command, ...args] = scripts.start.split(' ');
  if (command !== 'node') throw new Error(`npm start must run node itself, not ${command}: ${scripts.start}`);
  return args.map((arg) => (arg.endsWith('.ts') ? join(root, arg) : arg));
}

/**
 * The node arguments that run the server's bundle: `bin/local.ts` and its modules prebuilt by the
 * integration project's globalSetup (test/helpers/build-container-bundles.js, which names the file in
 * `FLOCK_TEST_SERVER_BUNDLE`). The same code as `npm start` runs, without compiling it at every start.
 */
function serverBundleArgs(): string[] {
  const bundle = process.env.FLOCK_TEST_SERVER_BUNDLE;
  if (!bundle) throw new Error('FLOCK_TEST_SERVER_BUNDLE is unset: run the integration tests through jest');
  return ['--enable-source-maps', bundle];
}

/**
 * Starts the real local server (`bin/local.ts`, what `npm start` runs) in a child process on a
 * random port with its own data directory, and waits until it has written its credentials.
 * A child process because the SQS emulator is ESM-only, which jest's module system cannot load.
 */
export async function startLocalServer(options: StartOptions = {}): Promise<LocalServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'flock-test-'));
  const args = [
    ...(options.npmStart ? startScriptArgs() : serverBundleArgs()),
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--retry-delay',
    String(options.retryDelaySeconds ?? 1),
    '--cohort-interval',
    String(options.cohortIntervalSeconds ?? 0),
    '--jobs-interval',
    String(options.jobsIntervalSeconds ?? 0),
    '--exports-batching-window',
    String(options.exportsBatchingWindowSeconds ?? 1),
    '--lake-interval',
    String(options.lakeIntervalSeconds ?? 0),
    '--lake-compact-interval',
    String(options.lakeCompactIntervalSeconds ?? 0),
    ...(options.ingestBatchingWindowSeconds === undefined
      ? []
      : ['--ingest-batching-window', String(options.ingestBatchingWindowSeconds)]),
    ...(options.persistent ? [] : ['--memory']),
    ...(options.trustedProxies === undefined ? [] : ['--trusted-proxies', String(options.trustedProxies)]),
    ...(options.functionPreload ? ['--function-preload', ...options.functionPreload] : []),
    ...Object.entries(options.callerLimits ?? {}).flatMap(([name, limit]) => [
      callerLimitFlags[name as keyof CallerLimits],
      String(limit),
    ]),
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...(options.exportBudgetSeconds === undefined
        ? {}
        : { [envNames.exportBudgetMs]: String(options.exportBudgetSeconds * 1000) }),
      ...options.env,
    },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));

  const deadline = Date.now() + 60_000;
  while (!output.includes('Flock is running')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`local server did not start:\n${output}`);
    }
    await sleep(50);
  }
  const read = <T>(name: string): T => JSON.parse(readFileSync(join(dataDir, name), 'utf8')) as T;
  return {
    credentials: read<Credentials>('credentials.json'),
    endpoints: read<LocalEndpoints>('local.json'),
    dataDir,
    pid: child.pid ?? -1,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      const code = await exited;
      if (!options.dataDir && existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

/**
 * The pauses between two probes of `eventually`: short at first (most waits end within a batching
 * window), then longer, since each probe is a request the server spends CPU on (about 30 ms for an
 * events listing) and the test suite is bound by CPU.
 */
const probePauses = { firstMs: 100, factor: 1.5, maxMs: 500 } as const;

/**
 * Polls `probe` until it returns a value, for at most `timeoutMs` (a last probe at the deadline);
 * `description` says what is awaited ("the 3 events to be stored"), so a timeout names what never came.
 */
export async function eventually<T>(
  description: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let pauseMs: number = probePauses.firstMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    const left = deadline - Date.now();
    if (left < 0) throw new Error(`waited ${timeoutMs / 1000} s in vain for ${description}`);
    await sleep(Math.min(pauseMs, left));
    pauseMs = Math.min(pauseMs * probePauses.factor, probePauses.maxMs);
  }
}

/** A document client of the server's embedded DynamoDB, for a test that reads or plants items itself. */
export function documentClientOf(server: LocalServer): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: server.endpoints.dynamodbEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
}

/** An SQS client of the server's embedded queues, for a test that reads, sends or creates queues itself. */
export function sqsClientOf(server: LocalServer): SQSClient {
  return new SQSClient({
    endpoint: server.endpoints.sqsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    useQueueUrlAsEndpoint: false,
  });
}

export interface SharedServerOptions {
  /**
   * An organization of the file's own rather than a project in the bootstrapped one: `credentials`
   * are then its owner's personal API key and its first project ('Default project', as a server's
   * bootstrap makes them), for a file that reads or counts what belongs to an organization (its
   * projects, its keys, its members) or to the user. @default false
   */
  readonly organization?: boolean;
}

/**
 * The local server this jest worker shares with the other integration files it runs, with a project
 * of the test file's own in `credentials` (same organization, owner and personal API key as the
 * server's bootstrapped project): the file sees only what it writes to its project, but other
 * projects' data exists beside it, so it never assumes an empty deployment. The server runs with
 * `startLocalServer()`'s defaults, with caller limits no test reaches; a file that needs other
 * options, its output, or a deployment of its own starts its own server. `stop()` (in `afterAll`)
 * releases it: the broker stops it when no file of the worker has taken it again within
 * `sharedServerGraceMs`, or when the run ends (test/helpers/shared-servers.ts).
 */
export async function sharedLocalServer(
  projectName: string,
  options: SharedServerOptions = {},
): Promise<LocalServer> {
  const broker = process.env.FLOCK_TEST_SHARED_SERVERS;
  if (!broker) throw new Error('FLOCK_TEST_SHARED_SERVERS is unset: run the integration tests through jest');
  const workerServer = `${broker}/servers/${process.env.JEST_WORKER_ID ?? '1'}`;
  const response = await fetch(workerServer);
  if (!response.ok) throw new Error(`the shared local server did not start:\n${await response.text()}`);
  const shared = (await response.json()) as SharedServerInfo;
  const server: LocalServer = {
    ...shared,
    output: () => {
      throw new Error('a shared local server keeps no output: start a server of your own to read it');
    },
    // The file is done with it: the broker stops it once no file of the worker has held it for a while.
    stop: async () => {
      await fetch(workerServer, { method: 'DELETE' });
      return null;
    },
  };
  if (options.organization) {
    const organization = await newOrganization(server, { organizationName: projectName });
    return {
      ...server,
      credentials: {
        apiUrl: shared.credentials.apiUrl,
        projectId: organization.projectId,
        projectApiKey: organization.projectApiKey,
        personalApiKey: organization.personalApiKey,
      },
    };
  }
  const project = await newProject(server, projectName);
  return {
    ...server,
    credentials: { ...shared.credentials, projectId: project.id, projectApiKey: project.token },
  };
}
