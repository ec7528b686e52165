import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { forEachLimited } from '../../functions/shared/concurrency';
import { queueDepth, sampleEvent, waitUntilQueueEmpty } from '../lib';
import { capturePoster } from './capture-poster';
import { startBenchFlock } from './local-flock';

/** What one run through the local server measured. */
export interface ConsumerRun {
  readonly eventsPerSecond: number;
  /** CPU time of every thread of this process (server, emulators, containers) per event. */
  readonly cpuMsPerEvent: number;
  /** Messages the run left in the lake queue: some with the hand-off, none without. */
  readonly lakeMessages: number;
  /**
   * Requests sent again after a 5xx (a function timed out on a starved machine): the run did more
   * than its load, so its figure is suspect. None on a machine that keeps up.
   */
  readonly retries: number;
}

const perRequest = 100;
const concurrency = 8;

/**
 * HTTP `/batch/` (100 events of the bench's mix a request, as bench/pipeline sends them, 8 at once) until the ingest queue is empty,
 * a request answered 5xx sent again after a backoff (as an SDK does: capture-poster.ts; counted in `retries`),
 * through a fresh local server whose consumer hands stored events to the lake queue or not
 * (`lakeHandOff`). The lake writer does not run either way: on AWS it is a function of its own on a
 * schedule, no part of the consumer's time.
 */
async function consumerRunHere(lakeHandOff: boolean, requests: number): Promise<ConsumerRun> {
  const bench = await startBenchFlock({ lakeIntervalMs: 0, lakeCompactIntervalMs: 0, lakeHandOff });
  try {
    const { flock, sqs } = bench;
    const { apiUrl, projectApiKey } = flock.credentials;
    const poster = capturePoster(apiUrl, projectApiKey);
    const post = (batch: readonly Record<string, unknown>[]): Promise<void> => poster.post(batch);
    // Warm up: the first request starts the capture and consumer functions (their cold starts).
    await post([sampleEvent(-1)]);
    await waitUntilQueueEmpty(sqs, flock.endpoints.queueUrl);
    const batches = Array.from({ length: requests }, (_, r) =>
      Array.from({ length: perRequest }, (_, i) => sampleEvent(r * perRequest + i)),
    );
    const started = performance.now();
    const cpuAtStart = process.cpuUsage();
    await forEachLimited(batches, concurrency, post);
    await waitUntilQueueEmpty(sqs, flock.endpoints.queueUrl);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuAtStart);
    const events = requests * perRequest;
    return {
      eventsPerSecond: events / seconds,
      cpuMsPerEvent: (cpu.user + cpu.system) / 1000 / events,
      lakeMessages: await queueDepth(sqs, flock.endpoints.lakeQueueUrl),
      retries: poster.retries,
    };
  } finally {
    await bench.stop();
  }
}

/**
 * `consumerRunHere` in a process of its own: one local server per process (the functions' environment
 * is the process's), and the process's CPU time is the run's alone.
 */
export async function consumerRun(lakeHandOff: boolean, requests: number): Promise<ConsumerRun> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', __filename, lakeHandOff ? 'on' : 'off', String(requests)],
    { maxBuffer: 64 * 2 ** 20 },
  );
  const last = stdout.trim().split('\n').at(-1)!;
  return JSON.parse(last) as ConsumerRun;
}

if (require.main === module) {
  const [handOff, requests] = process.argv.slice(2);
  consumerRunHere(handOff === 'on', Number(requests))
    .then((run) => console.log(JSON.stringify(run)))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
