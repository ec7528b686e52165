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
 * and deletes are counted from the messages' sizes. Targets: ≤ 1.7 write units and ≤ 0.05 SQS
 * requests per event.
 */
const requests = benchSetting('BENCH_REQUESTS', 60, 12);
const perRequest = 50;
const users = 200;
const chunkBytes = 64 * 1024;

const counted = { tableUnits: 0, gsiUnits: 0, sendChunks: 0, messageBytes: [] as number[] };
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
  };
  const emailFigures = await emailIndexCost(bench);
  const groupFigures = await groupCost(bench);

  const events = requests * perRequest;
  const sqsRequests = measured.sendChunks + consumerRequests(measured.messageBytes);
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
