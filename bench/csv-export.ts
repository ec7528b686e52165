import '../bin/local/quiet-sdk';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBenchFlock } from './support/local-flock';
import { captureFuzz } from './fuzz/capture';
import { createFixtures } from './fuzz/fixtures';
import { Prng } from './fuzz/prng';
import { runCorpus, send, slowRequestMs } from './fuzz/send';
import { benchSetting, report, waitUntilQueueEmpty } from './lib';
import { numberSetting } from '../functions/shared/config';

/**
 * The events CSV export alone, over what bench/fuzz stores: its capture family's hostile events
 * (some with many properties, odd names and distinct ids) and their persons, then
 * `GET /api/projects/:id/events/?format=csv&limit=100000` sent again and again, one at a time.
 * bench/fuzz counts any answer over 1 s sent alone as a finding; this is the one it found.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/csv-export.ts
 *   npx tsx bench/support/top-frames.ts /tmp/prof --only functions/events/ --top 25
 */
const seed = numberSetting('BENCH_SEED', 20_260_101);
const rounds = benchSetting('BENCH_CSV_ROUNDS', 7, 2);

async function main(): Promise<void> {
  // Failed consumer batches come back after a second, as in bench/fuzz.
  const bench = await startBenchFlock({ retryDelaySeconds: 1 });
  const { flock, sqs } = bench;
  const fixtures = await createFixtures(flock.credentials);
  const capture = captureFuzz(fixtures, new Prng(seed));
  await runCorpus(flock.credentials.apiUrl, capture, 8);
  // A batch that failed waits out its retry delay unseen by the queue's depth: wait past it, twice.
  for (let i = 0; i < 2; i++) {
    await waitUntilQueueEmpty(sqs, flock.endpoints.queueUrl, 250);
    await sleep(2_000);
  }

  const request = {
    method: 'GET',
    path: `/api/projects/${fixtures.projectId}/events/`,
    query: 'format=csv&limit=100000',
    headers: { authorization: `Bearer ${fixtures.personalApiKey}` },
    label: 'events CSV export',
  };
  // The first answer also starts the events function's container: it is not counted.
  const first = await send(flock.credentials.apiUrl, request);
  if (first.status !== 200)
    throw new Error(`the export answered ${first.status}: ${first.body.slice(0, 200)}`);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) times.push((await send(flock.credentials.apiUrl, request)).ms);
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const rows = first.body.split('\r\n').length - 2;
  const columns = first.body.slice(0, first.body.indexOf('\r\n')).split(',').length;
  report(
    'csv-export: the events CSV export of fuzz’s hostile events, sent alone',
    {
      'capture requests sent': capture.length,
      'rows exported': rows,
      columns,
      'body bytes': Buffer.byteLength(first.body),
      'answers ms (each alone)': times.join(', '),
      'median ms': median,
    },
    `median ≤ ${slowRequestMs} ms sent alone`,
    { figure: `${rows} rows: median ${median} ms alone`, met: median <= slowRequestMs },
  );
  await bench.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
