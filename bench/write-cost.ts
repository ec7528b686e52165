import '../bin/local/quiet-sdk';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBenchFlock } from './support/local-flock';
import { BroadcastChannel } from 'node:worker_threads';
import { benchSetting, report, round, sampleEvent, waitUntilQueueEmpty } from './lib';
import type { Metered } from './meters/metered';
import { meterChannel } from './meters/metered';

/**
 * Write cost of ingestion, through the real local pipeline: DynamoDB write units and billed SQS
 * requests per event, for /batch/ requests of 50 ~1 KB events from a pool of users who come back
 * (as real traffic does), metered inside the function containers (meters/write-cost.ts).
 * SQS bills each 64 KB of payload as one request; the event source's receives (10 messages each)
 * and deletes are counted from the messages' sizes. The lake is counted too: its claims' write units
 * (in the total), its queue's requests, its files' PUTs and bytes, and a cost in dollars per million
 * events (`lakeFigures`). Targets: ≤ 1.7 write units and ≤ 0.05 SQS requests per event.
 */
const requests = benchSetting('BENCH_REQUESTS', 60, 12);
const perRequest = 50;
const users = 200;
const chunkBytes = 64 * 1024;

const counted = {
  tableUnits: 0,
  gsiUnits: 0,
  sendChunks: 0,
  messageBytes: [] as number[],
  lakeRequests: 0,
  lakePuts: 0,
  lakeBytes: 0,
};
/** Read units by `<function> <kind of item>`, and milliseconds of invocations by function. */
const readUnits = new Map<string, number>();
const invocationMs = new Map<string, number>();
type Measured = typeof counted & {
  byKind: Map<string, number>;
  readUnits: Map<string, number>;
  invocationMs: Map<string, number>;
};
/** Write units by kind of item (the first segment of its partition key). */
const byKind = new Map<string, number>();
/** Writes refused by their condition, by kind of item: billed, yet not in the figure above. */
const refusedByKind = new Map<string, number>();
let lastMetered = 0;

/** Adds up what the function containers' meters (meters/write-cost.ts) broadcast. */
function listen(): BroadcastChannel {
  const channel = new BroadcastChannel(meterChannel);
  channel.onmessage = (message: unknown) => {
    const metered = (message as { data: Metered }).data;
    counted.tableUnits += metered.tableUnits;
    counted.gsiUnits += metered.gsiUnits;
    counted.sendChunks += metered.sendChunks;
    counted.lakeRequests += metered.lakeRequests ?? 0;
    counted.lakePuts += metered.lakePuts ?? 0;
    counted.lakeBytes += metered.lakeBytes ?? 0;
    for (const [key, n] of Object.entries(metered.readUnits ?? {}))
      readUnits.set(key, (readUnits.get(key) ?? 0) + n);
    for (const [key, n] of Object.entries(metered.invocationMs ?? {}))
      invocationMs.set(key, (invocationMs.get(key) ?? 0) + n);
    for (const [kind, n] of Object.entries(metered.refusedWrites))
      refusedByKind.set(kind, (refusedByKind.get(kind) ?? 0) + n);
    counted.messageBytes.push(...metered.messageBytes);
    for (const [kind, n] of Object.entries(metered.byKind)) byKind.set(kind, (byKind.get(kind) ?? 0) + n);
    lastMetered = performance.now();
  };
  return channel;
}

/** What the event source's receives (10 messages each) and deletes (10 per call) are billed. */
function consumerRequests(messageBytes: readonly number[]): number {
  let requests = 0;
  for (let i = 0; i < messageBytes.length; i += 10) {
    const group = messageBytes.slice(i, i + 10);
    requests += Math.max(1, Math.ceil(group.reduce((a, b) => a + b, 0) / chunkBytes)) + 1;
  }
  return requests;
}

/**
 * us-east-1 list prices, per unit, as AWS's public price pages give them:
 * - DynamoDB on-demand, $0.625 per million write request units and $0.125 per million read request
 *   units (https://aws.amazon.com/dynamodb/pricing/on-demand/);
 * - SQS standard queue, $0.40 per million requests, each 64 KB of payload one request
 *   (https://aws.amazon.com/sqs/pricing/);
 * - S3 Standard, $0.005 per 1,000 PUT requests and $0.023 per GB-month stored, first 50 TB
 *   (https://aws.amazon.com/s3/pricing/);
 * - Lambda on arm64, $0.0000133334 per GB-second (https://aws.amazon.com/lambda/pricing/).
 */
const prices = {
  writeUnit: 0.625 / 1e6,
  readUnit: 0.125 / 1e6,
  sqsRequest: 0.4 / 1e6,
  s3Put: 0.005 / 1000,
  s3GbMonth: 0.023,
  lambdaGbSecond: 0.0000133334,
};

/** Each function's memory on AWS (lib/stateless-stack.ts, lib/lake-function.ts), GB. */
const functionGb: Readonly<Record<string, number>> = { consumer: 0.5, lake: 2 };
/** A compacted file holds up to this much (lakeCompaction.targetBytes). */
const compactedFileBytes = 256 * 1024 * 1024;

/** Sum of the entries of `record` whose key matches `test`. */
const sumOf = (record: ReadonlyMap<string, number>, test: (key: string) => boolean): number =>
  [...record].filter(([key]) => test(key)).reduce((sum, [, n]) => sum + n, 0);

/**
 * The lake's part of the cost: its claims' write units (LAKE items, in the total above too), the read
 * units of exactly once (the consumer's strongly consistent read of its events' items, the lake
 * writer's settle check and claim reads), its queue's requests (hand-offs, the lake function's
 * receives and deletes), the files the lake function uploaded (PUTs) and their bytes, compaction's
 * PUTs (computed: one project-day of a million events is merged into files of up to 256 MB and a
 * marker; bench/lake measures compaction itself), and the dollars of a million events at these rates,
 * ingestion and lake together, with Lambda's duration of the consumer and the lake function and one
 * month of lake storage. Durations are wall time on this machine (a loaded one inflates them), and
 * the lake function here flushes every 5 s instead of every 5 minutes.
 */
function lakeFigures(measured: Measured, events: number): Record<string, number> {
  const claimUnits = measured.byKind.get('LAKE') ?? 0;
  const units = measured.tableUnits + measured.gsiUnits;
  const readUnits = sumOf(measured.readUnits, () => true);
  const consumerEventReads = sumOf(measured.readUnits, (key) => key === 'consumer E');
  const lakeReads = sumOf(measured.readUnits, (key) => key.startsWith('lake '));
  const sqsRequests = measured.sendChunks + consumerRequests(measured.messageBytes) + measured.lakeRequests;
  const bytesPerEvent = measured.lakePuts > 0 ? measured.lakeBytes / events : 0;
  const perMillion = 1e6 / events;
  const compactionPuts = Math.ceil((bytesPerEvent * 1e6) / compactedFileBytes) + 1;
  const gbSeconds = sumOf(
    new Map([...measured.invocationMs].map(([name, ms]) => [name, (ms / 1000) * (functionGb[name] ?? 0)])),
    (name) => name in functionGb,
  );
  const lambdaOf = (name: string): number =>
    ((measured.invocationMs.get(name) ?? 0) / 1000) * (functionGb[name] ?? 0) * perMillion;
  return {
    'lake: claim units per event (LAKE, in the total)': round(claimUnits / events, 3),
    'lake: read units per event (the lake function: settle check, claims)': round(lakeReads / events, 3),
    'consumer: read units per event of its events (strongly consistent, before the write)': round(
      consumerEventReads / events,
      3,
    ),
    'lake: SQS requests per event (hand-off, receive, delete)': round(measured.lakeRequests / events, 4),
    'lake: S3 PUTs per million events (flushes every 5 s)': Math.round(measured.lakePuts * perMillion),
    'lake: S3 PUTs per million events of one day, compaction (computed)': compactionPuts,
    'lake: Parquet bytes per event (flush files)': round(bytesPerEvent, 1),
    'Lambda GB-s per million events: consumer': round(lambdaOf('consumer'), 1),
    'Lambda GB-s per million events: lake function': round(lambdaOf('lake'), 1),
    '$ per million events: DynamoDB writes': round(units * perMillion * prices.writeUnit, 3),
    '$ per million events: DynamoDB reads (all functions)': round(
      readUnits * perMillion * prices.readUnit,
      3,
    ),
    '$ per million events: SQS (ingest and lake)': round(sqsRequests * perMillion * prices.sqsRequest, 3),
    '$ per million events: S3 PUTs (lake flushes and compaction)': round(
      (measured.lakePuts * perMillion + compactionPuts) * prices.s3Put,
      3,
    ),
    '$ per million events: S3 storage, a month': round((bytesPerEvent * 1e6 * prices.s3GbMonth) / 1e9, 4),
    '$ per million events: Lambda (consumer and lake function)': round(
      gbSeconds * perMillion * prices.lambdaGbSecond,
      3,
    ),
  };
}

type BenchFlock = Awaited<ReturnType<typeof startBenchFlock>>;

/** Sends `count` /batch/ requests of `perRequest` events (the n-th made by `eventOf(n)`), then waits until all are metered. */
async function sendAndSettle(
  bench: BenchFlock,
  count: number,
  eventOf: (n: number) => Record<string, unknown>,
): Promise<void> {
  const { flock, sqs } = bench;
  const { apiUrl, projectApiKey } = flock.credentials;
  for (let r = 0; r < count; r++) {
    const batch = Array.from({ length: perRequest }, (_, i) => eventOf(r * perRequest + i));
    const response = await fetch(`${apiUrl}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: projectApiKey, batch }),
    });
    if (response.status !== 200) throw new Error(`capture answered ${response.status}`);
  }
  await waitUntilQueueEmpty(sqs, flock.endpoints.queueUrl, 50);
  // The lake function (every 5 s) writes what the consumer handed over, then deletes the messages.
  await waitUntilQueueEmpty(sqs, flock.endpoints.lakeQueueUrl, 50);
  // The meters' last messages may still be on their way.
  while (performance.now() - lastMetered < 500) await sleep(100);
}

/** Units written to the items of one kind so far. */
const unitsOf = (kind: string): number => byKind.get(kind) ?? 0;

/**
 * The email index's cost (PEMAIL items, db/person-emails.ts), after the main figure: every user's
 * email set for the first time, the same again (no change: expected 0), then changed (a new entry
 * and the old one's removal), one event per user each time. Units per event of each round.
 */
async function emailIndexCost(bench: BenchFlock): Promise<Record<string, number>> {
  const rounds = [
    ['set for the first time', 'a'],
    ['sent again unchanged', 'a'],
    ['changed', 'b'],
  ] as const;
  const figures: Record<string, number> = {};
  for (const [label, version] of rounds) {
    const before = unitsOf('PEMAIL');
    await sendAndSettle(bench, users / perRequest, (n) => {
      const event = sampleEvent(n, users);
      const properties = event.properties as Record<string, unknown>;
      return {
        ...event,
        properties: { ...properties, $set: { email: `${String(event.distinct_id)}-${version}@example.com` } },
      };
    });
    figures[`  email index units per event: email ${label}`] = round((unitsOf('PEMAIL') - before) / users, 3);
  }
  return figures;
}

/**
 * Group writes (GROUP items, consumer/groups.ts): one `$groupidentify` per event for 20 companies,
 * setting their plan, then the same again (no change: expected 0). Units per event of each round.
 */
async function groupCost(bench: BenchFlock): Promise<Record<string, number>> {
  const figures: Record<string, number> = {};
  for (const label of ['new groups', 'unchanged groups']) {
    const before = unitsOf('GROUP');
    await sendAndSettle(bench, users / perRequest, (n) => ({
      ...sampleEvent(n, users),
      event: '$groupidentify',
      properties: { $group_type: 'company', $group_key: `company-${n % 20}`, $group_set: { plan: 'pro' } },
    }));
    figures[`  group units per event: $groupidentify of ${label}`] = round(
      (unitsOf('GROUP') - before) / users,
      3,
    );
  }
  return figures;
}

async function main(): Promise<void> {
  const channel = listen();
  const bench = await startBenchFlock({ functionPreload: [join(__dirname, 'meters/write-cost.ts')] });
  await sendAndSettle(bench, requests, (n) => sampleEvent(n, users));
  const measured = {
    ...counted,
    messageBytes: [...counted.messageBytes],
    byKind: new Map(byKind),
    refusedByKind: new Map(refusedByKind),
    readUnits: new Map(readUnits),
    invocationMs: new Map(invocationMs),
  };
  const emailFigures = await emailIndexCost(bench);
  const groupFigures = await groupCost(bench);

  const events = requests * perRequest;
  const sqsRequests = measured.sendChunks + consumerRequests(measured.messageBytes);
  const lake = lakeFigures(measured, events);
  const unitsPerEvent = round((measured.tableUnits + measured.gsiUnits) / events);
  const sqsPerEvent = round(sqsRequests / events, 3);
  report(
    `write cost: ${requests} × /batch/ of ${perRequest} ~1 KB events, ${users} returning users`,
    {
      'DynamoDB write units per event': unitsPerEvent,
      '  of which GSI (from the key schema)': round(measured.gsiUnits / events, 3),
      'SQS requests per event': sqsPerEvent,
      '  send (64 KB chunks)': measured.sendChunks,
      '  receive + delete (event source)': consumerRequests(measured.messageBytes),
      ...Object.fromEntries(
        [...measured.byKind].sort().map(([kind, n]) => [`  units per event: ${kind}`, round(n / events, 3)]),
      ),
      ...Object.fromEntries(
        [...measured.refusedByKind]
          .sort()
          .map(([kind, n]) => [`  refused conditional writes per event: ${kind}`, round(n / events, 3)]),
      ),
      ...lake,
      ...emailFigures,
      ...groupFigures,
    },
    '≤ 1.7 write units, ≤ 0.05 SQS requests',
    {
      figure: `${unitsPerEvent} write units, ${sqsPerEvent} SQS requests per event`,
      met: unitsPerEvent <= 1.7 && sqsPerEvent <= 0.05,
    },
  );
  channel.close();
  await bench.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
