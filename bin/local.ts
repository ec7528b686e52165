import './local/quiet-sdk';
import { Command, InvalidArgumentError, Option } from 'commander';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defaultCallerLimits } from '../functions/shared/http/caller-limits';
import { maxTrustedProxies } from '../functions/shared/http/forwarded-for';
import { lakeCompaction } from '../functions/shared/lake/compaction';
import { lakeFlush } from '../functions/shared/queue/definitions';
import { startLocalFlock } from './local/server';
import { LocalStartError } from './local/start-errors';

/** A `--rate-limit-*` value: a whole number of requests a minute (0 turns the limit off). */
function requestsPerMinute(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(limit))
    throw new InvalidArgumentError('expected a whole number of requests a minute (0 = off).');
  return limit;
}

/** A duration option: seconds, 0 or more (fractions allowed). */
function seconds(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0)
    throw new InvalidArgumentError('expected a number of seconds, 0 or more.');
  return parsed;
}

/** A `--trusted-proxies` value: a whole number of proxies, at most `maxTrustedProxies`. */
function trustedProxyCount(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count > maxTrustedProxies)
    throw new InvalidArgumentError(`expected a whole number of proxies from 0 to ${maxTrustedProxies}.`);
  return count;
}

/**
 * `npm start`: Flock on this machine. API on PORT (default 8000) with embedded DynamoDB (dynalite,
 * persisted under .flock/) and SQS (fauxqs) emulators; `-- --memory` keeps nothing between runs.
 */
const program = new Command()
  .name('flock-local')
  .description(
    'Run Flock locally: the API, the ingest consumer, exports and embedded DynamoDB, SQS and S3 emulators.',
  )
  .option(
    '--memory',
    'keep nothing between runs: a fresh bootstrap, its keys written to a new temporary directory (or --data-dir if given)',
    false,
  )
  .addOption(
    new Option('--port <port>', 'HTTP port (0 = any free port)')
      .env('PORT')
      .default('8000')
      .argParser(Number),
  )
  .option('--host <host>', 'address the API and the emulators listen on', '127.0.0.1')
  .option('--data-dir <dir>', 'where credentials.json, local.json and the DynamoDB data are kept', '.flock')
  .option('--visibility-timeout <seconds>', 'visibility timeout of the local ingest queue', Number)
  .option(
    '--retry-delay <seconds>',
    'retry a failed message after this many seconds (default: the visibility timeout)',
    Number,
  )
  .option(
    '--log-level <level>',
    'log level of the functions (DEBUG, INFO, WARN, ERROR); INFO and DEBUG also log one line per request',
    'WARN',
  )
  .option(
    '--summary-interval <seconds>',
    'print a pipeline summary line (received, stored, DLQ depth) this often while events flow; 0 = never',
    Number,
    5,
  )
  .option(
    '--cohort-interval <seconds>',
    'run the cohort calculation schedule this often (every 60 s on AWS)',
    Number,
    5,
  )
  .option(
    '--lake-interval <seconds>',
    `write the lake (the lake queue into Parquet files in the embedded S3) this often (every ${lakeFlush.scheduleMinutes} min on AWS); 0 = never`,
    Number,
    5,
  )
  .option(
    '--lake-compact-interval <seconds>',
    `compact the lake and empty deleted projects' prefixes this often (every ${lakeCompaction.scheduleMinutes} min on AWS); 0 = never`,
    Number,
    60,
  )
  .option(
    '--jobs-interval <seconds>',
    'run pending plugin jobs (historical exports) this often (every 60 s on AWS)',
    Number,
    5,
  )
  .option(
    '--exports-batching-window <seconds>',
    'gather exports queue messages this long before invoking the exports function (10 s on AWS)',
    seconds,
  )
  .option(
    '--ingest-batching-window <seconds>',
    'gather ingest queue messages this long before invoking the consumer (2 s on AWS)',
    seconds,
  )
  .option(
    '--rate-limit-per-key <n>',
    'requests a minute one personal API key may make to the private API, as the AWS edge WAF counts them; 0 = off',
    requestsPerMinute,
    defaultCallerLimits.perKey,
  )
  .option(
    '--rate-limit-per-ip <n>',
    'requests a minute one IP address may make to the public endpoints (capture, flags); 0 = off',
    requestsPerMinute,
    defaultCallerLimits.perIpPublic,
  )
  .option(
    '--rate-limit-per-ip-private <n>',
    'requests a minute one IP address may make to the private API, whatever its keys; 0 = off',
    requestsPerMinute,
    defaultCallerLimits.perIpPrivate,
  )
  .option(
    '--trusted-proxies <n>',
    `reverse proxies in front of the server (0-${maxTrustedProxies}): capture takes the client address that many entries from the right of X-Forwarded-For; 0 = the connection's address`,
    trustedProxyCount,
    0,
  )
  .option(
    '--function-preload <modules...>',
    'modules every function container loads before its handler, as NODE_OPTIONS=--require would on Lambda (tests inject faults with them)',
  )
  .parse();

const options = program.opts<{
  memory: boolean;
  port: number;
  host: string;
  dataDir: string;
  visibilityTimeout?: number;
  retryDelay?: number;
  logLevel: string;
  summaryInterval: number;
  cohortInterval: number;
  lakeInterval: number;
  lakeCompactInterval: number;
  jobsInterval: number;
  exportsBatchingWindow?: number;
  ingestBatchingWindow?: number;
  rateLimitPerKey: number;
  rateLimitPerIp: number;
  rateLimitPerIpPrivate: number;
  trustedProxies: number;
  functionPreload?: string[];
}>();

/**
 * Where this run keeps its files. A memory run never touches the persistent data directory (its
 * credentials.json belongs to the data there): it writes to a fresh temporary directory, unless a
 * --data-dir was named explicitly (scripts then know where to read the running server's keys).
 */
function dataDirOf(isDefault: boolean): string {
  if (options.memory && isDefault) return mkdtempSync(join(tmpdir(), 'flock-memory-'));
  return resolve(options.dataDir);
}

async function main(): Promise<void> {
  const isDefaultDataDir = program.getOptionValueSource('dataDir') === 'default';
  const dataDir = dataDirOf(isDefaultDataDir);
  const flock = await startLocalFlock({
    dataDir,
    isDefaultDataDir,
    memory: options.memory,
    port: options.port,
    host: options.host,
    visibilityTimeoutSeconds: options.visibilityTimeout,
    retryDelaySeconds: options.retryDelay,
    logLevel: options.logLevel,
    summaryIntervalMs: options.summaryInterval * 1000,
    cohortIntervalMs: options.cohortInterval * 1000,
    lakeIntervalMs: options.lakeInterval * 1000,
    lakeCompactIntervalMs: options.lakeCompactInterval * 1000,
    jobsIntervalMs: options.jobsInterval * 1000,
    exportsBatchingWindowSeconds: options.exportsBatchingWindow,
    ingestBatchingWindowSeconds: options.ingestBatchingWindow,
    functionPreload: options.functionPreload?.map((module) => resolve(module)),
    trustedProxies: options.trustedProxies,
    callerLimits: {
      perKey: options.rateLimitPerKey,
      perIpPublic: options.rateLimitPerIp,
      perIpPrivate: options.rateLimitPerIpPrivate,
    },
  });
  const { credentials } = flock;
  console.log(
    [
      `Flock is running at ${credentials.apiUrl}${options.memory ? ' (in memory: nothing is kept)' : ''}`,
      `  project id         ${credentials.projectId}`,
      `  project API key    ${credentials.projectApiKey}`,
      `  personal API key   ${credentials.personalApiKey}`,
      `  saved to           ${dataDir}/credentials.json${flock.bootstrapped ? ' (new)' : ' (reused)'}`,
      `  S3 (embedded)      ${flock.endpoints.s3Endpoint}  (S3 Export: s3BucketEndpoint, s3ForcePathStyle "true", any keys)`,
      `  lake               s3://${flock.endpoints.lakeBucket}/events/ in the embedded S3 (docs/lake.md)`,
      '',
      "Try it (events are stored after the consumer's batching window, about 2 s):",
      `  curl -s ${credentials.apiUrl}/capture/ -H 'Content-Type: application/json' -d '{"api_key":"${credentials.projectApiKey}","event":"hello","properties":{"distinct_id":"me"}}'`,
      `  curl -s ${credentials.apiUrl}/api/projects/${credentials.projectId}/events/ -H 'Authorization: Bearer ${credentials.personalApiKey}'`,
      '',
      'Ctrl-C stops (after the events already accepted are stored).',
    ].join('\n'),
  );
  let signalled = false;
  const shutdown = (): void => {
    if (signalled) return;
    signalled = true;
    console.log('\nStopping: finishing in-flight batches…');
    flock.stop().then(
      () => {
        console.log('Stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  // What the user can act on is one line (or a few), not a stack trace.
  console.error(error instanceof LocalStartError ? error.message : error);
  process.exit(1);
});
