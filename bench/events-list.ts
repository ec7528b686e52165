import '../bin/local/quiet-sdk';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { startBenchFlock } from './support/local-flock';
import { itemsOfBatch } from '../functions/consumer/store';
import type { StoredEvent } from '../functions/shared/domain/event';
import { benchSetting, report, round, writeUnits } from './lib';

/**
 * The events list's cost at scale: p50 latency of the newest-100 page (through the local API, as a
 * client sees it) at 2k and at 200k stored events, for all events, one distinct id and one event
 * name. Events are stored with the consumer's own item layout (itemsOfBatch), in deliveries of
 * 1,000 events arriving in time order, as ingestion writes them. Target: each ratio ≤ 1.5. And a
 * deep offset at the large size (`offset=9000`, or 200 short of the end in a short run) against the
 * offset-0 page of the same size: the offset is skipped by index entries, target ≤ 1.5 too.
 */
const total = benchSetting('BENCH_EVENTS', 200_000, 6_000);
const small = 2_000;
const perDelivery = 1_000;
const samples = benchSetting('BENCH_SAMPLES', 40, 10);
const deepOffset = Math.min(9_000, total - 200);
const users = 1_000;
const names = [
  '$pageview',
  '$autocapture',
  'signed up',
  'purchase',
  'invited',
  'search',
  'share',
  '$pageleave',
];
const started = Date.now() - 2 * 24 * 3600 * 1000;
/** Spread over two days, oldest first. */
const timestampOf = (i: number): string =>
  new Date(started + Math.floor((i / total) * 2 * 24 * 3600 * 1000)).toISOString();

function eventAt(i: number, projectId: number): StoredEvent {
  // user-0 and $pageview are hot (a tenth and a third of events), so their pages are full at 2k too.
  const distinctId = i % 10 === 0 ? 'user-0' : `user-${(i * 7919) % users}`;
  return {
    uuid: randomUUID(),
    projectId,
    event: i % 3 === 0 ? '$pageview' : names[i % names.length]!,
    distinctId,
    properties: {
      $current_url: `https://example.com/p/${i % 500}`,
      $browser: 'Chrome',
      plan: i % 2 ? 'pro' : 'free',
      n: i,
    },
    timestamp: timestampOf(i),
    elementsChain: '',
    createdAt: new Date().toISOString(),
  };
}

async function load(
  documents: DynamoDBDocumentClient,
  table: string,
  projectId: number,
  from: number,
  to: number,
) {
  let units = 0;
  const calls: Record<string, unknown>[][] = [];
  for (let start = from; start < to; start += perDelivery) {
    const events = Array.from({ length: Math.min(perDelivery, to - start) }, (_, k) =>
      eventAt(start + k, projectId),
    );
    const items = itemsOfBatch([{ messageId: randomUUID(), projectId, events }], randomUUID()).map(
      (put) => put.item,
    );
    for (const item of items) units += writeUnits(item);
    for (let i = 0; i < items.length; i += 25) calls.push(items.slice(i, i + 25));
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < calls.length) {
        const call = calls[next++]!;
        await documents.send(
          new BatchWriteCommand({
            RequestItems: { [table]: call.map((Item) => ({ PutRequest: { Item } })) },
          }),
        );
      }
    }),
  );
  return units;
}

async function p50(url: string, key: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples + 5; i++) {
    const startedAt = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body = (await response.json()) as { results: unknown[] };
    if (response.status !== 200 || body.results.length !== 100)
      throw new Error(`unexpected page: ${response.status} ${body.results.length}`);
    if (i >= 5) times.push(performance.now() - startedAt);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function main(): Promise<void> {
  const bench = await startBenchFlock();
  const { flock } = bench;
  const { apiUrl, projectId, personalApiKey } = flock.credentials;
  const documents = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: flock.endpoints.dynamodbEndpoint, region: 'us-east-1' }),
  );
  const base = `${apiUrl}/api/projects/${projectId}/events/?limit=100`;
  const queries = {
    all: base,
    'one distinct_id': `${base}&distinct_id=user-0`,
    'one event name': `${base}&event=%24pageview`,
  };

  let units = await load(documents, flock.endpoints.tables.events, projectId, 0, small);
  const before: Record<string, number> = {};
  for (const [name, url] of Object.entries(queries)) before[name] = await p50(url, personalApiKey);
  units += await load(documents, flock.endpoints.tables.events, projectId, small, total);
  const after: Record<string, number> = {};
  for (const [name, url] of Object.entries(queries)) after[name] = await p50(url, personalApiKey);

  const deep = await p50(`${base}&offset=${deepOffset}`, personalApiKey);

  const figures: Record<string, number | string> = {};
  const ratios = Object.keys(queries).map((name) => round(after[name]! / before[name]!));
  const deepRatio = round(deep / after.all!);
  for (const name of Object.keys(queries)) {
    figures[`${name}: p50 ms at ${small} / ${total}`] = `${round(before[name]!)} / ${round(after[name]!)}`;
    figures[`${name}: ratio`] = round(after[name]! / before[name]!);
  }
  figures[`offset ${deepOffset}: p50 ms at ${total}`] = round(deep);
  figures[`offset ${deepOffset} / offset 0: ratio`] = deepRatio;
  figures['events-table write units per event'] = round(units / total);
  report('events list: newest-100 page, small vs large project', figures, 'ratio ≤ 1.5 each', {
    figure: `${ratios.join(' / ')} (all / one distinct id / one event name) at ${total} vs ${small}; offset ${deepOffset}: ${deepRatio}`,
    met: [...ratios, deepRatio].every((ratio) => ratio <= 1.5),
  });
  documents.destroy();
  await bench.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
