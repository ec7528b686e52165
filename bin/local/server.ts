import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpGroup } from '../../functions/routes';
import { httpFunctionTimeoutSeconds, httpGroups } from '../../functions/routes';
import { envNames } from '../../functions/shared/config';
import { setFunctionEnvironment, setToolEnvironment } from '../environment';
import { eventsTable, singleTable } from '../../functions/shared/db/schema';
import { maxRequestBodyBytes } from '../../functions/shared/http/body-limits';
import type { CallerLimits } from '../../functions/shared/http/caller-limits';
import { defaultCallerLimits } from '../../functions/shared/http/caller-limits';
import {
  consumerEventSource,
  exportsEventSource,
  ingestQueue,
  lakeFlush,
  queryRunsEventSource,
} from '../../functions/shared/queue/definitions';
import { cohortCalculationTimeoutSeconds } from '../../functions/cohort_calculation/settings';
import { lakeCompaction } from '../../functions/shared/lake/compaction';
import { ensureLocalSecretsKey, LocalSecretCipher } from '../../functions/shared/secrets/local-cipher';
import { bootstrap } from '../ops/bootstrap';
import { CallerLimiter } from './caller-limiter';
import type { Emulators } from './emulators';
import { localLakeBucket, startEmulators } from './emulators';
import { localContainerBundles, localFunctionEntries, localPreload } from './container-bundles';
import { LocalFunction } from './function-host';
import { createApiServer } from './http-server';
import { PipelineSummary } from './pipeline-summary';
import { ingestEventSource, QueuePoller } from './poller';
import { LocalSchedule } from './schedule';
import { keysCreateCommand, listenError, LocalStartError, lockDataDir } from './start-errors';

export interface LocalOptions {
  /** Where credentials.json, local.json and (unless `memory`) the DynamoDB data live. */
  readonly dataDir: string;
  /** Keep nothing between runs: DynamoDB in memory, a fresh bootstrap every start. */
  readonly memory: boolean;
  /** `dataDir` is `npm start`'s default (`.flock`), not one the user named: shortens printed commands. */
  readonly isDefaultDataDir?: boolean;
  readonly port: number;
  readonly host?: string;
  /** Visibility timeout of the local ingest queue (default: the stack's). */
  readonly visibilityTimeoutSeconds?: number;
  /** Retry failed messages after this many seconds rather than after the visibility timeout. */
  readonly retryDelaySeconds?: number;
  readonly logLevel?: string;
  /** Modules every function container loads before its handler (see LocalFunctionOptions). */
  readonly functionPreload?: readonly string[];
  /** Print the pipeline summary line (see pipeline-summary.ts) this often while events flow; off when unset. */
  readonly summaryIntervalMs?: number;
  /**
   * Receives every EMF metrics line the functions write, as CloudWatch would read it from their logs
   * (bench/pipeline reads the consumer's ConsumerStageDuration from them).
   */
  readonly onMetrics?: (blob: Record<string, unknown>) => void;
  /**
   * Run the cohort calculation schedule this often (the stack runs it every minute); 0 never runs it
   * (benchmarks that time calculations themselves). @default 5000
   */
  readonly cohortIntervalMs?: number;
  /**
   * Run pending plugin jobs (historical exports) this often (the stack runs them every minute); 0
   * never runs them. @default 5000
   */
  readonly jobsIntervalMs?: number;
  /**
   * The exports queue's batching window, in seconds: how long the exports function's event source
   * gathers messages before invoking it (tests shorten it). @default the stack's, 10
   */
  readonly exportsBatchingWindowSeconds?: number;
  /**
   * The ingest queue's batching window, in seconds: how long the consumer's event source gathers
   * messages before invoking it (a test that waits out many failed receives shortens it).
   * @default the stack's, 2
   */
  readonly ingestBatchingWindowSeconds?: number;
  /**
   * Run the lake function (drain the lake queue into Parquet files in the embedded S3) this often (the
   * stack runs it every `lakeFlush.scheduleMinutes`); 0 never runs it. @default 5000
   */
  readonly lakeIntervalMs?: number;
  /**
   * Run the lake's upkeep (compaction, deleted projects' prefixes; functions/lake/compact-handler.ts)
   * this often (the stack runs it every `lakeCompaction.scheduleMinutes`); 0 never runs it. @default 60000
   */
  readonly lakeCompactIntervalMs?: number;
  /**
   * Whether the consumer hands stored events to the lake queue (its last stage). False leaves the
   * consumer without the lake queue, as a stack without a lake (bench/lake measures the consumer
   * both ways); the lake function, which needs the queue, must not run then (`lakeIntervalMs: 0`).
   * @default true
   */
  readonly lakeHandOff?: boolean;
  /** The edge's per-caller limits (requests a minute; 0 turns one off). @default defaultCallerLimits */
  readonly callerLimits?: CallerLimits;
  /**
   * Reverse proxies in front of the server whose `X-Forwarded-For` entries locate the client
   * (`-c trustedProxies=N` on AWS). @default 0
   */
  readonly trustedProxies?: number;
  readonly onError?: (error: unknown) => void;
}

/** `.flock/credentials.json`: what scripts and tests need to talk to the running server. */
export interface Credentials {
  readonly apiUrl: string;
  readonly projectId: number;
  readonly projectApiKey: string;
  readonly personalApiKey: string;
}

/** `.flock/local.json`: where the emulators of the running server are. */
export interface LocalEndpoints {
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly exportsQueueUrl: string;
  readonly exportsDeadLetterQueueUrl: string;
  readonly lakeQueueUrl: string;
  readonly lakeDeadLetterQueueUrl: string;
  /** The embedded S3 (path-style): an S3 Export config's `s3BucketEndpoint` for local exports. */
  readonly s3Endpoint: string;
  /** The lake's bucket in the embedded S3 (docs/lake.md). */
  readonly lakeBucket: string;
  readonly tables: { readonly events: string; readonly main: string };
  /** The server's own process: the one a Ctrl-C or SIGTERM must reach to drain before stopping. */
  readonly pid: number;
}

export interface LocalFlock {
  readonly credentials: Credentials;
  readonly endpoints: LocalEndpoints;
  readonly bootstrapped: boolean;
  stop(): Promise<void>;
}

/** How old a hand-off is before the local lake function checks and writes it (AWS: lakeQueue.settleSeconds). */
const localLakeSettleSeconds = 3;

/** The functions read the same variables on AWS; the SDK takes its endpoints from AWS_ENDPOINT_URL_*. */
function configureEnvironment(
  emulators: Emulators,
  logLevel: string,
  dataDir: string,
  lakeVisibilitySeconds: number,
): void {
  setToolEnvironment({
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
    AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint,
    POWERTOOLS_LOG_LEVEL: logLevel,
    POWERTOOLS_DEV: 'true',
    // Dev mode turns metrics off; locally they feed the summary line instead of CloudWatch.
    POWERTOOLS_METRICS_DISABLED: 'false',
  });
  setFunctionEnvironment({
    [envNames.eventsTable]: eventsTable.name,
    [envNames.singleTable]: singleTable.name,
    [envNames.ingestQueueUrl]: emulators.queueUrl,
    [envNames.exportsQueueUrl]: emulators.exportsQueueUrl,
    [envNames.lakeQueueUrl]: emulators.lakeQueueUrl,
    [envNames.queryRunsQueueUrl]: emulators.queryRunsQueueUrl,
    [envNames.lakeBucket]: localLakeBucket,
    [envNames.lakeS3Endpoint]: emulators.s3Endpoint,
    [envNames.lakeVisibilitySeconds]: String(lakeVisibilitySeconds),
    [envNames.maxBodyBytes]: String(maxRequestBodyBytes),
    [envNames.localMode]: 'true',
    // KMS's stand-in: the functions that seal or open plugin config secrets use this key file.
    [envNames.localSecretsKeyFile]: localSecretsKeyFile(dataDir),
  });
}

/** The local secrets key, generated on the data directory's first start and kept with its data. */
function localSecretsKeyFile(dataDir: string): string {
  const file = join(dataDir, 'secrets.key');
  ensureLocalSecretsKey(file);
  return file;
}

/**
 * Containers an HTTP function may run at once: one per core, at most 4. Lambda gives each concurrent
 * request a sandbox of its own, so a slow request (a 100,000-row CSV export) never delays another;
 * locally a second container starts only while every running one is busy, so a sequential client
 * still meets one container (one cold start), and concurrent clients a few, each a worker thread of
 * about 50 MB. Past one per core, more containers buy no CPU, and each compiles and collects the same
 * code on its own (on V8's compiler and collector threads, which every container and the emulators
 * share): on two cores, the pipeline bench's four capture containers cost 3% more CPU per event than
 * two (docs/consumer.md, "The pipeline in session 35").
 */
export const httpContainersPerFunction = (cores: number = availableParallelism()): number =>
  Math.max(1, Math.min(cores, 4));

/**
 * The consumer's containers, and so its concurrent batches: one per core (at most the event source's
 * `maxConcurrency`), so ingestion can use the machine as Lambda's concurrent batches would. The
 * poller runs no more batches at once than there are containers: Lambda runs one invocation per
 * sandbox, and a batch sharing a container with others would see its 30 s timeout run while they
 * use its CPU. On a slow or busy machine that timed batches out, and a timeout ends the container
 * with every batch it held, all delivered again (docs/consumer.md, "Batches per container").
 */
export const consumerContainers = (cores: number = availableParallelism()): number =>
  Math.max(1, Math.min(cores, consumerEventSource.maxConcurrency));

/**
 * Every function of the stack, each in its own local containers, started on first use from its
 * bundle (container-bundles.ts). The consumer gets `consumerContainers()`; an HTTP function gets up
 * to `httpContainersPerFunction`.
 */
function localFunctions(
  bundles: Readonly<Record<string, string>>,
  preload: readonly string[] = [],
  onMetrics?: (blob: Record<string, unknown>) => void,
): {
  http: Record<HttpGroup, LocalFunction>;
  consumer: LocalFunction;
  cohortCalculation: LocalFunction;
  exports: LocalFunction;
  lake: LocalFunction;
  lakeCompaction: LocalFunction;
} {
  const modules = new Map(localFunctionEntries().map((entry) => [entry.name, entry.modulePath]));
  const local = (
    name: string,
    options: { readonly timeoutMs: number; readonly maxContainers?: number },
  ): LocalFunction =>
    new LocalFunction({
      functionName: `flock-${name}`,
      modulePath: modules.get(name)!,
      bundle: bundles[name],
      preload: localPreload(preload),
      onMetrics,
      ...options,
    });
  const http = Object.fromEntries(
    httpGroups.map((group) => [
      group,
      local(group, {
        timeoutMs: httpFunctionTimeoutSeconds * 1000,
        maxContainers: httpContainersPerFunction(),
      }),
    ]),
  ) as Record<HttpGroup, LocalFunction>;
  const consumer = local('consumer', {
    timeoutMs: consumerEventSource.functionTimeoutSeconds * 1000,
    maxContainers: consumerContainers(),
  });
  const cohortCalculation = local('cohort_calculation', {
    timeoutMs: cohortCalculationTimeoutSeconds * 1000,
  });
  const exports = local('exports', { timeoutMs: exportsEventSource.functionTimeoutSeconds * 1000 });
  const lake = local('lake', { timeoutMs: lakeFlush.functionTimeoutSeconds * 1000 });
  const lakeCompactionFunction = local('lake_compaction', {
    timeoutMs: lakeCompaction.functionTimeoutSeconds * 1000,
  });
  return { http, consumer, cohortCalculation, exports, lake, lakeCompaction: lakeCompactionFunction };
}

/** The saved credentials, if their personal key and project token still work. */
async function usableCredentials(file: string): Promise<Credentials | undefined> {
  if (!existsSync(file)) return undefined;
  let saved: Credentials;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8')) as Credentials;
  } catch {
    return undefined;
  }
  const { findPersonalApiKey } = await import('../../functions/shared/db/personal-api-keys');
  const { findProjectByToken } = await import('../../functions/shared/db/projects');
  const [key, project] = await Promise.all([
    typeof saved.personalApiKey === 'string'
      ? findPersonalApiKey(singleTable.name, saved.personalApiKey)
      : undefined,
    typeof saved.projectApiKey === 'string'
      ? findProjectByToken(singleTable.name, saved.projectApiKey)
      : undefined,
  ]);
  return key && project ? saved : undefined;
}

/** Whether the single table holds anything: an organization bootstrapped by an earlier start. */
async function holdsData(): Promise<boolean> {
  const { documentClient } = await import('../../functions/shared/db/client');
  const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
  const { Items } = await documentClient.send(
    new ScanCommand({ TableName: singleTable.name, Limit: 1, ProjectionExpression: 'PK' }),
  );
  return (Items ?? []).length > 0;
}

/**
 * Reuses the saved credentials while their key and project still exist; bootstraps an empty
 * database. Data without usable credentials is refused: bootstrapping again would create a second
 * organization beside the first, whose only personal key would stay lost.
 */
async function credentialsFor(
  options: LocalOptions,
  apiUrl: string,
): Promise<{ credentials: Credentials; bootstrapped: boolean }> {
  const file = join(options.dataDir, 'credentials.json');
  if (!options.memory) {
    const saved = await usableCredentials(file);
    if (saved) return { credentials: { ...saved, apiUrl }, bootstrapped: false };
    if (await holdsData())
      throw new LocalStartError(
        [
          `${options.dataDir} holds Flock data, but ${existsSync(file) ? `the keys in ${file} no longer work` : `${file} is missing`}.`,
          'Starting would create a second organization. Mint a new personal API key for the existing user instead:',
          `  ${keysCreateCommand(options.dataDir, options.isDefaultDataDir ?? false)}`,
        ].join('\n'),
      );
  }
  const result = await bootstrap(singleTable.name);
  return {
    credentials: {
      apiUrl,
      projectId: result.projectId,
      projectApiKey: result.projectApiKey,
      personalApiKey: result.personalApiKey,
    },
    bootstrapped: true,
  };
}

/**
 * Brings a data directory written by an older Flock up to date before anything is served: plugin
 * configs move out of the project partition, their secrets sealed (bin/ops/migrate-plugin-configs.ts;
 * a no-op once done).
 */
async function upgradeLocalData(dataDir: string): Promise<void> {
  const { migratePluginConfigs } = await import('../ops/migrate-plugin-configs');
  const cipher = LocalSecretCipher.fromFile(localSecretsKeyFile(dataDir));
  const { configs } = await migratePluginConfigs(singleTable.name, cipher);
  if (configs > 0)
    console.log(`Upgraded ${configs} plugin config(s): own partition, secret settings sealed.`);
}

/** Waits until the queue is empty and no batch is in flight, for at most `timeoutMs`. */
async function drain(
  client: SQSClient,
  queueUrl: string,
  poller: QueuePoller,
  timeoutMs: number,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    const remaining =
      Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
      Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    if ((remaining === 0 && !poller.busy) || Date.now() > deadline) return remaining;
    await sleep(100);
  }
}

/**
 * All of Flock in this process: the emulators, the route table served over HTTP by the real
 * handlers, and the consumer fed by a poller that plays the SQS event source.
 */
export async function startLocalFlock(options: LocalOptions): Promise<LocalFlock> {
  if (options.lakeHandOff === false && options.lakeIntervalMs !== 0)
    throw new Error('lakeHandOff: false needs lakeIntervalMs: 0 (the lake function reads the lake queue)');
  mkdirSync(options.dataDir, { recursive: true });
  const releaseLock = lockDataDir(options.dataDir);
  // Every container loads its function's prebuilt bundle: built here if its sources changed.
  const bundles = await localContainerBundles(options.functionPreload, { markUsed: true }).catch(
    (error: unknown) => {
      releaseLock();
      throw error;
    },
  );
  // A lake message whose flush failed comes back after this (AWS: twice the lake function's timeout).
  const lakeVisibilitySeconds = Math.max(5, options.retryDelaySeconds ?? 30);
  const emulators = await startEmulators({
    dynamodbPath: options.memory ? undefined : join(options.dataDir, 'dynamodb'),
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? ingestQueue.visibilityTimeoutSeconds,
    lakeVisibilityTimeoutSeconds: lakeVisibilitySeconds,
    host: options.host,
  }).catch((error: unknown) => {
    releaseLock();
    throw error;
  });
  configureEnvironment(emulators, options.logLevel ?? 'WARN', options.dataDir, lakeVisibilitySeconds);
  setFunctionEnvironment({ [envNames.trustedProxies]: String(options.trustedProxies ?? 0) });
  // The lake's settle time (docs/lake.md, "Exactly once"): the local consumer's writes land within
  // milliseconds, so hand-offs are checked after seconds rather than AWS's minutes.
  setFunctionEnvironment({ [envNames.lakeSettleSeconds]: String(localLakeSettleSeconds) });
  if (options.lakeHandOff === false) delete process.env[envNames.lakeQueueUrl];
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const summarySqs = new SQSClient({
    endpoint: emulators.sqsEndpoint,
    region: 'us-east-1',
    useQueueUrlAsEndpoint: false,
  });
  const summary = new PipelineSummary(summarySqs, emulators.deadLetterQueueUrl, (line) => console.log(line));
  const listeners = [
    ...(options.summaryIntervalMs ? [(blob: Record<string, unknown>) => summary.record(blob)] : []),
    ...(options.onMetrics ? [options.onMetrics] : []),
  ];
  const functions = localFunctions(
    bundles,
    options.functionPreload,
    listeners.length > 0 ? (blob) => listeners.forEach((listener) => listener(blob)) : undefined,
  );

  const logLevel = (options.logLevel ?? 'WARN').toUpperCase();
  const server = createApiServer(
    functions.http,
    onError,
    logLevel === 'INFO' || logLevel === 'DEBUG' ? (line) => console.log(line) : undefined,
    new CallerLimiter(options.callerLimits ?? defaultCallerLimits),
  );
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, resolve);
  }).catch(async (error: unknown) => {
    await emulators.stop();
    releaseLock();
    throw listenError(error, host, options.port);
  });
  const { port } = server.address() as AddressInfo;
  const apiUrl = `http://${options.host && options.host !== '0.0.0.0' ? options.host : 'localhost'}:${port}`;

  const { credentials, bootstrapped } = await upgradeLocalData(options.dataDir)
    .then(() => credentialsFor(options, apiUrl))
    .catch(async (error: unknown) => {
      server.close();
      await emulators.stop();
      releaseLock();
      throw error;
    });
  const endpoints: LocalEndpoints = {
    dynamodbEndpoint: emulators.dynamodbEndpoint,
    sqsEndpoint: emulators.sqsEndpoint,
    queueUrl: emulators.queueUrl,
    deadLetterQueueUrl: emulators.deadLetterQueueUrl,
    exportsQueueUrl: emulators.exportsQueueUrl,
    exportsDeadLetterQueueUrl: emulators.exportsDeadLetterQueueUrl,
    lakeQueueUrl: emulators.lakeQueueUrl,
    lakeDeadLetterQueueUrl: emulators.lakeDeadLetterQueueUrl,
    s3Endpoint: emulators.s3Endpoint,
    lakeBucket: localLakeBucket,
    tables: { events: eventsTable.name, main: singleTable.name },
    pid: process.pid,
  };
  writeFileSync(join(options.dataDir, 'credentials.json'), `${JSON.stringify(credentials, null, 2)}\n`, {
    mode: 0o600,
  });
  writeFileSync(join(options.dataDir, 'local.json'), `${JSON.stringify(endpoints, null, 2)}\n`);

  const poller = new QueuePoller({
    endpoint: emulators.sqsEndpoint,
    queueUrl: emulators.queueUrl,
    queueArn: emulators.queueArn,
    consumer: functions.consumer,
    eventSource: ingestEventSource(options.ingestBatchingWindowSeconds),
    // One batch per container, as Lambda runs one invocation per sandbox (consumerContainers).
    concurrency: consumerContainers(),
    onError,
    retryDelaySeconds: options.retryDelaySeconds,
  });
  poller.start();
  // The exports queue's event source, and the plugin job schedule, both of the exports function.
  const exportsPoller = new QueuePoller({
    endpoint: emulators.sqsEndpoint,
    queueUrl: emulators.exportsQueueUrl,
    queueArn: emulators.exportsQueueArn,
    consumer: functions.exports,
    eventSource: {
      ...exportsEventSource,
      maxBatchingWindowSeconds:
        options.exportsBatchingWindowSeconds ?? exportsEventSource.maxBatchingWindowSeconds,
    },
    onError,
    retryDelaySeconds: options.retryDelaySeconds,
  });
  exportsPoller.start();
  // Async query runs: the runs queue's event source on the query function (lib/query-runs.ts).
  const queryRunsPoller = new QueuePoller({
    endpoint: emulators.sqsEndpoint,
    queueUrl: emulators.queryRunsQueueUrl,
    queueArn: emulators.queryRunsQueueArn,
    consumer: functions.http.query,
    eventSource: queryRunsEventSource,
    // Two pollers, not the mapping's five: every local server (each integration test) polls it while idle.
    concurrency: 2,
    onError,
    retryDelaySeconds: options.retryDelaySeconds,
  });
  queryRunsPoller.start();
  const jobsSchedule = new LocalSchedule(functions.exports, options.jobsIntervalMs ?? 5000, onError);
  if (options.jobsIntervalMs !== 0) jobsSchedule.start();
  const cohortSchedule = new LocalSchedule(
    functions.cohortCalculation,
    options.cohortIntervalMs ?? 5000,
    onError,
  );
  if (options.cohortIntervalMs !== 0) cohortSchedule.start();
  const lakeSchedule = new LocalSchedule(functions.lake, options.lakeIntervalMs ?? 5000, onError);
  if (options.lakeIntervalMs !== 0) lakeSchedule.start();
  const lakeCompactionSchedule = new LocalSchedule(
    functions.lakeCompaction,
    options.lakeCompactIntervalMs ?? 60_000,
    onError,
  );
  if (options.lakeCompactIntervalMs !== 0) lakeCompactionSchedule.start();
  if (options.summaryIntervalMs) summary.start(options.summaryIntervalMs);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      // No new requests; then let the consumer finish what was accepted (the SQS emulator keeps
      // nothing across restarts, so leaving messages behind would lose them).
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      const sqs = new SQSClient({
        endpoint: emulators.sqsEndpoint,
        region: 'us-east-1',
        useQueueUrlAsEndpoint: false,
      });
      // Ingestion first (it feeds the exports queue), then exports.
      const remaining =
        (await drain(sqs, emulators.queueUrl, poller, 30_000)) +
        (await drain(sqs, emulators.exportsQueueUrl, exportsPoller, 30_000));
      sqs.destroy();
      if (remaining > 0)
        console.warn(`Stopped with ${remaining} message(s) still queued; they are not kept.`);
      await Promise.all([
        poller.stop(),
        exportsPoller.stop(),
        queryRunsPoller.stop(),
        cohortSchedule.stop(),
        jobsSchedule.stop(),
        lakeSchedule.stop(),
        lakeCompactionSchedule.stop(),
      ]);
      summary.stop();
      await summary.flush();
      summarySqs.destroy();
      await Promise.all(
        [
          functions.consumer,
          functions.cohortCalculation,
          functions.exports,
          functions.lake,
          functions.lakeCompaction,
          ...Object.values(functions.http),
        ].map((fn) => fn.stop()),
      );
      await emulators.stop();
      releaseLock();
    })());

  return { credentials, endpoints, bootstrapped, stop };
}
