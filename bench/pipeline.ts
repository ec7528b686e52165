import '../bin/local/quiet-sdk';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { startBenchFlock } from './support/local-flock';
import { DynamoRequests } from './support/dynamo-requests';
import { mainThreadCpuMs } from './support/main-thread-cpu';
import { MainThreadProfile } from './support/main-thread-profile';
import { StageDurations } from './support/stage-durations';
import { StoredEvents } from './support/stored-events';
import { ThreadTimeline } from './support/thread-timeline';
import { itemsOfBatch } from '../functions/consumer/store';
import { processEvent } from '../functions/shared/domain/process-event';
import type { CaptureMessage } from '../functions/shared/queue/message';
import { environmentValue } from '../bin/environment';
import { join } from 'node:path';
import { benchSetting, queueDepth, report, round, sampleEvent, waitUntilQueueEmpty } from './lib';

/**
 * Local pipeline throughput: events/s from HTTP /batch/ (100 events per request) until every event
 * is stored, next to the floor of writing the same items (event items and their index pages)
 * straight into the same embedded DynamoDB with BatchWriteItem (25 per call, 8 calls at once).
 * Target: ratio ≥ 0.8. It also prints where the consumer's time went: each stage's
 * `ConsumerStageDuration` per event, from the metrics the consumer writes.
 *
 * 100k events by default: a throughput, not a latency. Every run pays a fixed delay up front, since
 * the event source waits out its 2 s batching window before the first batch (as Lambda's does), which
 * a short run would mostly measure (20k events: about 0.45). BENCH_REQUESTS changes the size.
 */
const requests = benchSetting('BENCH_REQUESTS', 1000, 20);
const perRequest = 100;
const concurrency = 8;
/** `BENCH_TRACE=1`: count the DynamoDB requests and items per event (docs/consumer.md), at a cost in rate. */
const trace = environmentValue('BENCH_TRACE') === '1' ? new DynamoRequests() : undefined;
/** `BENCH_PROFILE=<file>.cpuprofile`: the main thread's CPU profile of the pipeline phase alone. */
const profilePath = environmentValue('BENCH_PROFILE');
/**
 * `BENCH_TIMELINE=1`: each second's CPU by thread group and the consumer's batches in flight, and
 * how much of the two cores the pipeline used (docs/consumer.md); each invocation posts a message.
 */
const timelineOn = environmentValue('BENCH_TIMELINE') === '1';
/**
 * `BENCH_FUNCTION_NICE=<n>`: the function containers' threads run at nice `n`, below the emulators'
 * thread (an experiment: on AWS the functions never take CPU from DynamoDB and SQS).
 */
const functionNice = environmentValue('BENCH_FUNCTION_NICE');
const preload = [
  ...(timelineOn ? [join(__dirname, 'meters/invocation-timeline.ts')] : []),
  ...(functionNice ? [join(__dirname, 'meters/function-priority.ts')] : []),
];

async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * What the consumer writes for these requests, computed by the consumer's own code, as if one
 * delivery held them all: the fewest index pages possible, so the floor is never slowed by more
 * items than the pipeline writes.
 */
function sameItems(batches: Record<string, unknown>[][], projectId: number): Record<string, unknown>[] {
  const messages = batches.map((batch) => {
    const message: CaptureMessage = {
      v: 1,
      project_id: projectId,
      now: new Date().toISOString(),
      sent_at: null,
      ip: '127.0.0.1',
      site_url: null,
      events: batch.map((data) => ({ uuid: randomUUID(), distinct_id: String(data.distinct_id), data })),
    };
    return {
      messageId: randomUUID(),
      projectId,
      events: message.events.map((captured) => processEvent(message, captured)),
    };
  });
  return itemsOfBatch(messages, randomUUID()).map((put) => ({
    ...put.item,
    PK: `floor#${put.item.PK}`,
  }));
}

/** Milliseconds of CPU (user and system, every thread of this process). */
const cpuMs = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000;

/** The main thread's CPU milliseconds since `start` (undefined where /proc cannot tell). */
function elapsedMainMs(start: number | undefined): number | undefined {
  const now = mainThreadCpuMs();
  return start === undefined || now === undefined ? undefined : now - start;
}

async function main(): Promise<void> {
  const stages = new StageDurations();
  trace?.start();
  // The lake writer stays off: it is no part of HTTP → stored (on AWS a function of its own, every 5
  // minutes), yet locally its per-event claims would run every 5 s on the emulators' thread, which
  // the floor never shares with it.
  const stored = new StoredEvents();
  const bench = await startBenchFlock({
    onMetrics: (blob) => {
      stages.record(blob);
      stored.record(blob);
    },
    lakeIntervalMs: 0,
    ...(preload.length > 0 ? { functionPreload: preload } : {}),
  });
  const { flock, sqs } = bench;
  const { apiUrl, projectApiKey, projectId } = flock.credentials;
  const batches = Array.from({ length: requests }, (_, r) =>
    Array.from({ length: perRequest }, (_, i) => sampleEvent(r * perRequest + i)),
  );
  const bodies = batches.map((batch) => JSON.stringify({ api_key: projectApiKey, batch }));

  // Warm up: the first request starts the capture and consumer functions (their cold starts).
  const warmUp = await fetch(`${apiUrl}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: projectApiKey, batch: [sampleEvent(-1)] }),
  });
  if (warmUp.status !== 200) throw new Error(`capture answered ${warmUp.status}: ${await warmUp.text()}`);
  await waitUntilQueueEmpty(sqs, flock.endpoints.queueUrl);
  stages.reset();
  stored.reset();
  trace?.reset();

  // Pipeline: HTTP → capture → SQS → consumer → DynamoDB, until the consumer has stored every event
  // (its metrics say so as each batch ends: no polling on the emulators' thread while it works).
  const profile = profilePath ? await MainThreadProfile.start(profilePath) : undefined;
  const timeline = timelineOn ? new ThreadTimeline(() => stored.count) : undefined;
  timeline?.start();
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  const mainAtStart = mainThreadCpuMs();
  await pool(bodies, concurrency, async (body) => {
    const response = await fetch(`${apiUrl}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (response.status !== 200)
      throw new Error(`capture answered ${response.status}: ${await response.text()}`);
    timeline?.countPosted(perRequest);
  });
  const events = requests * perRequest;
  // Once a second, the queue is asked whether a message was dead-lettered (its events never stored).
  while (!(await stored.waitFor(events, 1000))) {
    if ((await queueDepth(sqs, flock.endpoints.queueUrl)) === 0 && stored.count < events)
      throw new Error(`the queue emptied with ${events - stored.count} events not stored (dead-lettered?)`);
  }
  const pipelineSeconds = (performance.now() - started) / 1000;
  const pipelineCpu = cpuMs(process.cpuUsage(cpuAtStart));
  const pipelineMain = elapsedMainMs(mainAtStart);
  await profile?.stop();
  await timeline?.stop();
  const timelineReport = timeline?.report();
  // The last batch's messages deleted, before the floor's writes start.
  await waitUntilQueueEmpty(sqs, flock.endpoints.queueUrl);
  const requestsPerEvent = trace?.perEvent(events);
  trace?.stop();

  // Floor: the same items, straight into the same DynamoDB.
  const items = sameItems(batches, projectId);
  const documents = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: flock.endpoints.dynamodbEndpoint, region: 'us-east-1' }),
  );
  const calls: (typeof items)[] = [];
  for (let i = 0; i < items.length; i += 25) calls.push(items.slice(i, i + 25));
  const floorStarted = performance.now();
  const floorCpuAtStart = process.cpuUsage();
  const floorMainAtStart = mainThreadCpuMs();
  await pool(calls, concurrency, async (call) => {
    await documents.send(
      new BatchWriteCommand({
        RequestItems: { [flock.endpoints.tables.events]: call.map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
  });
  const floorSeconds = (performance.now() - floorStarted) / 1000;
  const floorCpu = cpuMs(process.cpuUsage(floorCpuAtStart));
  const floorMain = elapsedMainMs(floorMainAtStart);

  const pipelineRate = events / pipelineSeconds;
  const floorRate = events / floorSeconds;
  const ratio = round(pipelineRate / floorRate);
  report(
    'pipeline: HTTP /batch/ → stored, vs BatchWriteItem of the same items',
    {
      events,
      'items per event': round(items.length / events),
      'pipeline events/s': round(pipelineRate, 0),
      'floor events/s (BatchWriteItem)': round(floorRate, 0),
      ratio,
      // CPU time of every thread (server, emulators, function containers) per event: on a shared
      // machine, a steadier comparison of two builds than the rates.
      'pipeline CPU ms/event': round(pipelineCpu / events, 3),
      'floor CPU ms/event': round(floorCpu / events, 3),
      // The main thread alone (dynalite, fauxqs, the API gateway, the poller, the bench's clients):
      // the pipeline's bottleneck. Its CPU time hardly moves with the machine's load, where the rates
      // do, so the ratio of the two is the figure to compare builds by on a shared machine.
      ...(pipelineMain !== undefined && floorMain !== undefined
        ? {
            'pipeline main-thread CPU ms/event': round(pipelineMain / events, 3),
            'floor main-thread CPU ms/event': round(floorMain / events, 3),
            'main-thread CPU ratio (floor / pipeline)': round(floorMain / pipelineMain),
          }
        : {}),
      'consumer batches': stages.batches,
      // Where the consumer's time went (docs/consumer.md): each stage's wall time, summed over the
      // batches, per event. Stages that run at the same time overlap.
      ...Object.fromEntries(
        Object.entries(stages.perEvent(events)).map(([stage, ms]) => [
          `stage ${stage} (ms/event)`,
          round(ms, 4),
        ]),
      ),
      ...requestsPerEvent,
      ...timelineReport?.totals,
    },
    '≥ 0.8',
    { figure: `${ratio} (${round(pipelineRate, 0)} vs ${round(floorRate, 0)} events/s)`, met: ratio >= 0.8 },
  );
  if (timelineReport) console.log(timelineReport.rows.join('\n'));
  documents.destroy();
  await bench.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
