import '../bin/local/quiet-sdk';
import { SQSClient } from '@aws-sdk/client-sqs';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Credentials, LocalEndpoints } from '../bin/local/server';
import {
  benchSetting,
  listEventIds,
  queueDepth,
  report,
  round,
  sampleEvent,
  waitUntilQueueEmpty,
} from './lib';

/**
 * Soak: mixed traffic (single events, batches, flag decisions, events pages) against `npm start` as
 * a user runs it (its own process, data on disk), for BENCH_SOAK_SECONDS (600) at a steady
 * BENCH_SOAK_RATE requests per second (40). Counts every answer that is not a 200, reads every
 * accepted event back through the events API, and samples the server process's resident memory
 * (the API, the function containers and the consumer all live in it) every 5 s: a leak shows as the
 * last minute's mean well above the second minute's.
 *
 * Each local container is a worker thread of about 50 MB, started only when all of its function's
 * running ones are busy (bin/local/function-host.ts). Left to chance, four clients may first land on
 * one function together in minute 8 and step the RSS up by a container, which is not a leak; so
 * before the clock starts each kind of request is sent by all four clients at once, a few times,
 * and the server's thread count is printed by minute next to its RSS to show the pool stayed put.
 * Then BENCH_SOAK_WARMUP_SECONDS (90) of the run's own traffic let the 20-odd containers' start-up
 * garbage be collected: without them the second minute stood 5–15% above the plateau that follows.
 */
const seconds = benchSetting('BENCH_SOAK_SECONDS', 600, 20);
const rate = benchSetting('BENCH_SOAK_RATE', 40, 10);
/** Seconds of the same traffic before the clock starts (see the warm-up below). */
const warmUpSeconds = benchSetting('BENCH_SOAK_WARMUP_SECONDS', 90, 5);
const concurrency = 4;
const sampleEveryMs = 5000;

/** Resident memory of a process in MB, and its thread count (Linux's /proc). */
function processSample(pid: number): { mb: number; threads: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  const threads = /Threads:\s+(\d+)/.exec(status)?.[1];
  return { mb: Number(kilobytes) / 1024, threads: Number(threads) };
}

async function waitForServer(dataDir: string, deadline: number): Promise<Credentials> {
  const file = join(dataDir, 'credentials.json');
  while (Date.now() < deadline) {
    if (existsSync(file) && existsSync(join(dataDir, 'local.json'))) {
      const credentials = JSON.parse(readFileSync(file, 'utf8')) as Credentials;
      const answer = await fetch(`${credentials.apiUrl}/decide/`).catch(() => undefined);
      if (answer) return credentials;
    }
    await sleep(200);
  }
  throw new Error('npm start did not come up within 60 s');
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'flock-soak-'));
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, '../bin/local.ts'), '--data-dir', dataDir, '--port', '0'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const serverExit = new Promise<number | null>((resolve) => server.once('exit', resolve));
  try {
    const { apiUrl, projectApiKey, projectId, personalApiKey } = await waitForServer(
      dataDir,
      Date.now() + 60_000,
    );
    const endpoints = JSON.parse(readFileSync(join(dataDir, 'local.json'), 'utf8')) as LocalEndpoints;
    const sqs = new SQSClient({
      endpoint: endpoints.sqsEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });

    const accepted = new Set<string>();
    const errors: string[] = [];
    const counts = { capture: 0, batch: 0, decide: 0, 'events page': 0 };
    const rss: { at: number; mb: number; threads: number }[] = [];

    const send = async (kind: keyof typeof counts, path: string, init: RequestInit): Promise<void> => {
      counts[kind] += 1;
      const response = await fetch(`${apiUrl}${path}`, init).catch((error: Error) => error);
      if (response instanceof Error) errors.push(`${kind}: ${response.message}`);
      else {
        await response.arrayBuffer();
        if (response.status !== 200) errors.push(`${kind}: ${response.status}`);
      }
    };
    const json = (body: unknown): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

    /** Request i: a single event, a batch of 10, a flag decision or an events page, by i mod 4. */
    const request = async (i: number): Promise<void> => {
      if (i % 4 === 0) {
        const event = sampleEvent(i, 200);
        await send('capture', '/i/v0/e/', json({ ...event, api_key: projectApiKey }));
        accepted.add(String(event.uuid));
      } else if (i % 4 === 1) {
        const batch = Array.from({ length: 10 }, (_, j) => sampleEvent(i * 10 + j, 200));
        await send('batch', '/batch/', json({ api_key: projectApiKey, batch }));
        for (const event of batch) accepted.add(String(event.uuid));
      } else if (i % 4 === 2) {
        await send('decide', '/decide/?v=3', json({ token: projectApiKey, distinct_id: `user-${i % 200}` }));
      } else {
        await send('events page', `/api/projects/${projectId}/events/?limit=100`, {
          headers: { authorization: `Bearer ${personalApiKey}` },
        });
      }
    };

    /** `rate` requests a second from `concurrency` clients for `ms`, indices from `first` (a multiple of 4). */
    const steady = async (first: number, ms: number): Promise<void> => {
      const started = Date.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (;;) {
            const i = next++;
            // A steady rate: request i is due at i / rate seconds.
            const due = started + (i * 1000) / rate;
            if (due >= started + ms) return;
            if (due > Date.now()) await sleep(due - Date.now());
            await request(first + i);
          }
        }),
      );
    };

    // Warm-up (see above): every client sends the same kind at once, three rounds of each kind, then
    // the same traffic as the run while the containers' start-up garbage is collected. Its requests
    // count like the others; its indices lie past the run's, from a multiple of 4 (index mod 4 is the
    // kind).
    const warmUpFrom = Math.ceil((seconds * rate) / 4) * 4;
    for (let round = 0; round < 3; round++)
      for (let kind = 0; kind < 4; kind++)
        await Promise.all(
          Array.from({ length: concurrency }, (_, client) =>
            request(warmUpFrom + (round * concurrency + client) * 4 + kind),
          ),
        );
    await steady(warmUpFrom + 12 * concurrency, warmUpSeconds * 1000);

    const started = Date.now();
    const sampler = setInterval(() => {
      rss.push({ at: Date.now() - started, ...processSample(server.pid!) });
    }, sampleEveryMs);
    await steady(0, seconds * 1000);
    clearInterval(sampler);
    await waitUntilQueueEmpty(sqs, endpoints.queueUrl, 200);
    const deadLettered = await queueDepth(sqs, endpoints.deadLetterQueueUrl);
    const listed = await listEventIds(apiUrl, projectId, personalApiKey);
    sqs.destroy();

    const missing = [...accepted].filter((uuid) => !listed.has(uuid)).length;
    const duplicated = [...listed.values()].filter((count) => count > 1).length;
    const samplesOf = (from: number) =>
      rss.filter((sample) => sample.at >= from && sample.at < from + 60_000);
    const minute = (from: number): number[] => samplesOf(from).map((sample) => sample.mb);
    const minutes = Array.from({ length: Math.floor(seconds / 60) }, (_, m) => m * 60_000);
    const second = minute(60_000);
    const last = minute(seconds * 1000 - 60_000);
    const growth = second.length && last.length ? mean(last) / mean(second) : Number.NaN;
    report(
      `soak: ${seconds} s of mixed traffic at ${rate} requests/s against npm start (after ${warmUpSeconds} s of warm-up)`,
      {
        ...Object.fromEntries(Object.entries(counts).map(([kind, n]) => [`${kind} requests`, n])),
        'answers other than 200': errors.length,
        'events accepted': accepted.size,
        'events missing': missing,
        'events stored more than once': duplicated,
        'messages in the DLQ': deadLettered,
        'server RSS MB, 2nd minute (mean)': second.length ? round(mean(second), 1) : '-',
        'server RSS MB, last minute (mean)': last.length ? round(mean(last), 1) : '-',
        'last minute / 2nd minute': Number.isNaN(growth) ? '- (run ≥ 3 minutes)' : round(growth, 3),
        // The shape says more than two minutes do: a plateau, a steady climb, or one late jump.
        'server RSS MB by minute (mean)': minutes
          .map((from) => minute(from))
          .map((samples) => (samples.length ? Math.round(mean(samples)) : '-'))
          .join(', '),
        // Each container is a worker thread (and the threads V8 gives it): a step here is a container.
        'server threads by minute (most)': minutes
          .map((from) => samplesOf(from).map((sample) => sample.threads))
          .map((threads) => (threads.length ? Math.max(...threads) : '-'))
          .join(', '),
      },
      'errors 0, missing 0, more than once 0, last minute within 10% of the 2nd',
      {
        figure: `${accepted.size} events: ${errors.length} errors, ${missing} missing, ${duplicated} more than once; last/2nd minute RSS ${Number.isNaN(growth) ? '-' : round(growth, 3)}`,
        met: errors.length === 0 && missing === 0 && duplicated === 0 && deadLettered === 0 && growth <= 1.1,
      },
    );
    for (const error of errors.slice(0, 8)) console.log(`    ${error}`);
  } finally {
    server.kill('SIGINT');
    await serverExit;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
