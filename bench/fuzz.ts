import '../bin/local/quiet-sdk';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBenchFlock } from './support/local-flock';
import { routes } from '../functions/routes';
import { bodyFuzz } from './fuzz/bodies';
import { captureFuzz } from './fuzz/capture';
import { createFixtures } from './fuzz/fixtures';
import { flagsFuzz } from './fuzz/flags';
import { hostileExportsFuzz } from './fuzz/hostile-exports';
import { hostilePluginFuzz } from './fuzz/hostile-plugins';
import { hostileCohortFuzz } from './fuzz/hostile-cohorts';
import { Prng } from './fuzz/prng';
import { queryFuzz, storedEventReads } from './fuzz/queries';
import type { Outcome } from './fuzz/send';
import { runCorpus, send, slowRequestMs } from './fuzz/send';
import { routeSweep } from './fuzz/sweep';
import type { FuzzRequest } from './fuzz/types';
import { benchSetting, queueDepth, report } from './lib';
import { mainThreadCpuMs } from './support/main-thread-cpu';
import { cpuSpent, FunctionThreads } from './support/function-threads';
import { numberSetting } from '../functions/shared/config';
import { environmentValue } from '../bin/environment';

/**
 * Bad input: a deterministic corpus (seeded, BENCH_SEED) of hostile requests over every row of the
 * route table, against the real local server: path variables, methods, keys, bodies, encodings and
 * query strings done wrong. Counts 5xx answers, crashes (handler exceptions and container exits,
 * through the server's onError), consumer messages that end in the dead-letter queue, and 4xx JSON
 * bodies not in the documented `{type, code, detail, attr}` shape. Target: 0 5xx, 0 crashes.
 */
const seed = numberSetting('BENCH_SEED', 20_260_101);
/** Requests of the corpus sent (a short run sends a seeded sample of it). */
const corpusLimit = benchSetting('BENCH_FUZZ_REQUESTS', Number.POSITIVE_INFINITY, 200);
const concurrency = 8;

const describe = (outcome: Outcome): string => {
  const { request } = outcome;
  const body =
    request.body === undefined
      ? 'no body'
      : `${typeof request.body === 'string' ? request.body.length : request.body.byteLength} B body`;
  const path = request.path.length > 90 ? `${request.path.slice(0, 90)}…` : request.path;
  const query = request.query ? `?${request.query.slice(0, 60)}` : '';
  const answer = outcome.transportError ?? `${outcome.status} ${outcome.body.slice(0, 160)}`;
  return `    ${request.method} ${path}${query} [${request.label.slice(0, 110)}; ${body}]\n      → ${answer}`;
};

function printFirst(title: string, outcomes: readonly Outcome[], count = 8): void {
  if (outcomes.length === 0) return;
  console.log(`\n  ${title} (first ${Math.min(count, outcomes.length)} of ${outcomes.length}):`);
  for (const outcome of outcomes.slice(0, count)) console.log(describe(outcome));
}

async function waitForConsumer(sqs: SQSClient, queueUrl: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let depth = await queueDepth(sqs, queueUrl);
  while (depth > 0 && Date.now() < deadline) {
    await sleep(250);
    depth = await queueDepth(sqs, queueUrl);
  }
  return depth;
}

/** The events of the first dead-lettered messages, to say which input the consumer could not store. */
async function deadLetteredEvents(sqs: SQSClient, queueUrl: string): Promise<string[]> {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }),
  );
  return (Messages ?? []).flatMap((message) => {
    const { events } = JSON.parse(message.Body ?? '{}') as { events?: { data?: unknown }[] };
    return (events ?? []).map((event) => JSON.stringify(event.data).slice(0, 200));
  });
}

async function main(): Promise<void> {
  const crashes: string[] = [];
  const bench = await startBenchFlock({
    // Failed consumer batches come back after a second and dead-letter after five receives.
    retryDelaySeconds: 1,
    onError: (error: unknown) => crashes.push(error instanceof Error ? error.message : String(error)),
    // Each container's thread, by function: where a slow answer re-sent alone spent its CPU.
    functionPreload: [join(__dirname, 'meters/invocation-timeline.ts')],
  });
  const functions = new FunctionThreads();
  const { flock, sqs } = bench;
  const fixtures = await createFixtures(flock.credentials);

  const prng = new Prng(seed);
  const corpus: FuzzRequest[] = [
    ...routeSweep(fixtures, prng),
    ...bodyFuzz(fixtures),
    ...captureFuzz(fixtures, prng),
    ...flagsFuzz(fixtures, prng),
    ...queryFuzz(fixtures),
    ...hostileExportsFuzz(fixtures),
    ...hostilePluginFuzz(fixtures),
    ...hostileCohortFuzz(fixtures),
  ];
  // Interleave the groups, so that no function sees its whole share at once; the same order every run.
  const shuffled = prng.sample(corpus, Math.min(corpusLimit, corpus.length));

  // The local API Gateway, the emulators and the poller share this process's main thread (functions
  // run in worker threads): a stall there delays every answer in flight, whatever its input.
  const mainThread = monitorEventLoopDelay({ resolution: 10 });
  mainThread.enable();
  const started = performance.now();
  const tally = await runCorpus(flock.credentials.apiUrl, shuffled, concurrency);
  mainThread.disable();
  const seconds = (performance.now() - started) / 1000;
  const undelivered = await waitForConsumer(sqs, flock.endpoints.queueUrl, 60_000);
  const deadLettered = await queueDepth(sqs, flock.endpoints.deadLetterQueueUrl);
  // Stored events are parsed again on every read (`$elements_chain` → `elements`): read them back now
  // that the hostile ones are stored, a page at a time.
  const reads = await runCorpus(flock.credentials.apiUrl, storedEventReads(fixtures), concurrency);
  for (const key of ['serverErrors', 'undocumented', 'notJson4xx', 'transportErrors', 'slow'] as const)
    tally[key].push(...reads[key]);
  tally.sent += reads.sent;
  for (const [statusClass, count] of Object.entries(reads.byClass))
    tally.byClass[statusClass] = (tally.byClass[statusClass] ?? 0) + count;
  const slowest = [tally.slowest, reads.slowest].reduce((a, b) => ((b?.ms ?? 0) > (a?.ms ?? 0) ? b : a));
  // A slow answer is either the input's doing or the queue's (8 clients on this machine's cores): each
  // is sent again alone, on an idle server, and still counts as slow only if it is slow there too.
  await waitForConsumer(sqs, flock.endpoints.queueUrl, 60_000);
  const aloneSlow: Outcome[] = [];
  let slowestAlone: (Outcome & { readonly cpu: string }) | undefined;
  for (const outcome of tally.slow) {
    // Where the re-sent answer's time went: the main thread (the API gateway, the emulators serving
    // the function's reads, the server's schedules), each function's containers (the one answering,
    // and any background work at that moment), the rest (the garbage collector's helpers).
    const mainBefore = mainThreadCpuMs() ?? 0;
    const allBefore = process.cpuUsage();
    const functionsBefore = functions.cpuByFunction();
    const again = await send(flock.credentials.apiUrl, outcome.request);
    const all = process.cpuUsage(allBefore);
    const main = (mainThreadCpuMs() ?? 0) - mainBefore;
    // Functions that ran under 5 ms then are counted with the other threads.
    const byFunction = cpuSpent(functionsBefore, functions.cpuByFunction()).filter(({ ms }) => ms >= 5);
    const inFunctions = byFunction.reduce((sum, { ms }) => sum + ms, 0);
    const rest = Math.max(0, (all.user + all.system) / 1000 - main - inFunctions);
    if (again.ms > slowRequestMs) aloneSlow.push(again);
    if (!slowestAlone || again.ms > slowestAlone.ms)
      slowestAlone = {
        ...again,
        cpu: [
          `main thread ${Math.round(main)}`,
          ...byFunction.map(({ functionName, ms }) => `${functionName} ${Math.round(ms)}`),
          `other threads ${Math.round(rest)} ms CPU`,
        ].join(', '),
      };
  }
  // Sent twice more: a first run of its code in the container it reached (a cold path) answers
  // faster the second time, a cost of the input itself does not.
  const slowestAgain: number[] = [];
  for (let i = 0; slowestAlone && i < 2; i++)
    slowestAgain.push((await send(flock.credentials.apiUrl, slowestAlone.request)).ms);

  const rows = routes.filter((route) => route.path !== '$default').length;
  report(
    'fuzz: hostile requests over every route',
    {
      'requests sent': tally.sent,
      'route rows reached': `${tally.routeKeys.size} of ${rows + 1} (incl. $default)`,
      seconds: Math.round(seconds),
      '2xx': tally.byClass['2xx'] ?? 0,
      '3xx': tally.byClass['3xx'] ?? 0,
      '4xx': tally.byClass['4xx'] ?? 0,
      '5xx': tally.serverErrors.length,
      'no response': tally.transportErrors.length,
      'crashes (onError)': crashes.length,
      'consumer messages dead-lettered': deadLettered,
      'consumer messages still queued': undelivered,
      [`answers slower than ${slowRequestMs / 1000} s, ${concurrency} at a time`]: tally.slow.length,
      'main thread (gateway, emulators): longest stall ms': Math.round(mainThread.max / 1e6),
      'slowest answer ms': slowest ? `${slowest.ms} (${slowest.request.label.slice(0, 60)})` : '-',
      [`of those, slower than ${slowRequestMs / 1000} s sent alone`]: aloneSlow.length,
      'slowest of those sent alone ms': slowestAlone
        ? `${slowestAlone.ms} (${slowestAlone.request.label.slice(0, 60)}; ${Buffer.byteLength(slowestAlone.body)} B answered; ${slowestAlone.cpu}); again: ${slowestAgain.join(', ')}`
        : '-',
      'undocumented 4xx error shapes': tally.undocumented.length,
      '4xx without a JSON body': tally.notJson4xx.length,
    },
    `5xx 0, crashes 0, none slower than ${slowRequestMs / 1000} s sent alone`,
    {
      figure: `${tally.sent} requests: ${tally.serverErrors.length} 5xx, ${crashes.length} crashes, ${deadLettered} dead-lettered, ${aloneSlow.length} slow sent alone, ${tally.undocumented.length} undocumented shapes`,
      met:
        tally.serverErrors.length === 0 &&
        crashes.length === 0 &&
        deadLettered === 0 &&
        aloneSlow.length === 0 &&
        tally.undocumented.length === 0,
    },
  );
  const out = environmentValue('BENCH_FUZZ_OUT');
  if (out) {
    const failures = [
      ...tally.serverErrors,
      ...tally.transportErrors,
      ...tally.undocumented,
      ...tally.notJson4xx,
      ...tally.slow,
    ].map((outcome) => ({
      method: outcome.request.method,
      path: outcome.request.path,
      query: outcome.request.query,
      label: outcome.request.label,
      status: outcome.status,
      ms: outcome.ms,
      at: outcome.at,
      response: outcome.transportError ?? outcome.body.slice(0, 500),
    }));
    writeFileSync(out, `${JSON.stringify({ failures, crashes }, null, 1)}\n`);
  }
  printFirst('5xx', tally.serverErrors);
  printFirst('no response', tally.transportErrors);
  printFirst('undocumented 4xx shapes', tally.undocumented);
  printFirst(`slower than ${slowRequestMs / 1000} s sent alone`, aloneSlow);
  if (deadLettered > 0) {
    const events = await deadLetteredEvents(sqs, flock.endpoints.deadLetterQueueUrl);
    console.log(`\n  dead-lettered events (first ${Math.min(8, events.length)}):`);
    for (const event of events.slice(0, 8)) console.log(`    ${event}`);
  }
  if (crashes.length > 0) {
    console.log(`\n  crashes (first ${Math.min(8, crashes.length)} of ${crashes.length}):`);
    for (const message of crashes.slice(0, 8)) console.log(`    ${message.slice(0, 200)}`);
  }
  functions.close();
  await bench.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
