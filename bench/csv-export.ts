import '../bin/local/quiet-sdk';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBenchFlock } from './support/local-flock';
import { DynamoRequests } from './support/dynamo-requests';
import { mainThreadCpuMs } from './support/main-thread-cpu';
import { MainThreadProfile } from './support/main-thread-profile';
import { FunctionThreads } from './support/function-threads';
import { captureFuzz } from './fuzz/capture';
import { createFixtures } from './fuzz/fixtures';
import { Prng } from './fuzz/prng';
import { runCorpus, send, slowRequestMs } from './fuzz/send';
import { benchSetting, report, waitUntilQueueEmpty } from './lib';
import { numberSetting } from '../functions/shared/config';
import { environmentValue } from '../bin/environment';

/**
 * The events CSV export alone, over what bench/fuzz stores: its capture family's hostile events
 * (some with many properties, odd names and distinct ids) and their persons, then
 * `GET /api/projects/:id/events/?format=csv&limit=100000` sent again and again, one at a time.
 * bench/fuzz counts any answer over 1 s sent alone as a finding; this is the one it found.
 *
 * Each round also sends the smaller exports (`limit=10`, `limit=100`, the default limit) one after
 * the other, so that a fixed cost per answer shows beside the cost per row. Per answer: its wall
 * time, the events function's CPU (its container's thread, from /proc), and the main thread's CPU
 * (the API gateway and the emulators: dynalite's work for the function's reads). `BENCH_TRACE=1`
 * also counts the DynamoDB requests of one answer of each kind (reading them costs CPU of its own).
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/csv-export.ts
 *   npx tsx bench/support/top-frames.ts /tmp/prof --only events.js --top 25
 */
const seed = numberSetting('BENCH_SEED', 20_260_101);
const rounds = benchSetting('BENCH_CSV_ROUNDS', 7, 2);
const trace = environmentValue('BENCH_TRACE') === '1' ? new DynamoRequests() : undefined;
/** `BENCH_PROFILE=<file>.cpuprofile`: the main thread's CPU profile over the exports alone. */
const profilePath = environmentValue('BENCH_PROFILE');

const exports = [
  { label: 'limit=10', query: 'format=csv&limit=10' },
  { label: 'limit=100', query: 'format=csv&limit=100' },
  { label: 'default limit', query: 'format=csv' },
  { label: 'limit=100000', query: 'format=csv&limit=100000' },
] as const;
const full = exports[3];

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  // Failed consumer batches come back after a second, as in bench/fuzz.
  const bench = await startBenchFlock({
    retryDelaySeconds: 1,
    functionPreload: [join(__dirname, 'meters/invocation-timeline.ts')],
  });
  const { flock, sqs } = bench;
  const functions = new FunctionThreads();
  const events = () => functions.cpuMs('flock-events');
  const fixtures = await createFixtures(flock.credentials);
  const capture = captureFuzz(fixtures, new Prng(seed));
  await runCorpus(flock.credentials.apiUrl, capture, 8);
  // A batch that failed waits out its retry delay unseen by the queue's depth: wait past it, twice.
  for (let i = 0; i < 2; i++) {
    await waitUntilQueueEmpty(sqs, flock.endpoints.queueUrl, 250);
    await sleep(2_000);
  }

  const request = (query: string) => ({
    method: 'GET',
    path: `/api/projects/${fixtures.projectId}/events/`,
    query,
    headers: { authorization: `Bearer ${fixtures.personalApiKey}` },
    label: 'events CSV export',
  });
  // The first export is its container's first run of the export's code: it is not counted in the
  // medians, and printed on its own, as bench/fuzz's re-sent answer may be one. The setup's
  // requests (createFixtures polls the events API for its event) started that container: its CPU
  // before the export (its start, those requests) is printed apart from the export's own.
  const firstMainBefore = mainThreadCpuMs() ?? 0;
  const containerBefore = events() ?? 0;
  const first = await send(flock.credentials.apiUrl, request(full.query));
  const firstMain = (mainThreadCpuMs() ?? 0) - firstMainBefore;
  const firstFn = (events() ?? 0) - containerBefore;
  if (first.status !== 200)
    throw new Error(`the export answered ${first.status}: ${first.body.slice(0, 200)}`);
  await sleep(100);
  const measured = exports.map(() => ({ wall: [] as number[], fn: [] as number[], main: [] as number[] }));
  const requests: Record<string, string>[] = exports.map(() => ({}));
  trace?.start();
  const profile = profilePath ? await MainThreadProfile.start(profilePath) : undefined;
  for (let round = 0; round < rounds; round++) {
    for (const [i, { query }] of exports.entries()) {
      trace?.reset();
      const fnBefore = events() ?? 0;
      const mainBefore = mainThreadCpuMs() ?? 0;
      const outcome = await send(flock.credentials.apiUrl, request(query));
      if (outcome.status !== 200) throw new Error(`${query} answered ${outcome.status}`);
      measured[i]!.main.push((mainThreadCpuMs() ?? 0) - mainBefore);
      measured[i]!.fn.push((events() ?? 0) - fnBefore);
      measured[i]!.wall.push(outcome.ms);
      if (trace && round === 0) requests[i] = trace.perEvent(1);
    }
  }
  await profile?.stop();
  trace?.stop();
  functions.close();
  const rows = first.body.split('\r\n').length - 2;
  const columns = first.body.slice(0, first.body.indexOf('\r\n')).split(',').length;
  const figures: Record<string, string | number> = {
    'capture requests sent': capture.length,
    'rows exported': rows,
    columns,
    'body bytes': Buffer.byteLength(first.body),
    'answers ms (each alone)': measured[3]!.wall.join(', '),
    'first export (its container’s first): ms': `${first.ms} wall, ${Math.round(firstFn)} events CPU (${Math.round(containerBefore)} before it: the container’s start, the setup’s requests), ${Math.round(firstMain)} main thread CPU`,
  };
  for (const [i, { label }] of exports.entries()) {
    const { wall, fn, main } = measured[i]!;
    figures[`${label}: median ms`] =
      `${median(wall)} wall, ${Math.round(median(fn))} events CPU, ${Math.round(median(main))} main thread CPU`;
    for (const [kind, tally] of Object.entries(requests[i]!)) figures[`${label}: ${kind}`] = tally;
  }
  const fullMedian = median(measured[3]!.wall);
  report(
    'csv-export: the events CSV export of fuzz’s hostile events, sent alone',
    figures,
    `median ≤ ${slowRequestMs} ms sent alone`,
    { figure: `${rows} rows: median ${fullMedian} ms alone`, met: fullMedian <= slowRequestMs },
  );
  await bench.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
