import '../bin/local/quiet-sdk';
import { join } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import { startBenchFlock } from './support/local-flock';
import { listEventIds, queueDepth, report, sampleEvent, waitUntilQueueEmpty } from './lib';
import type { FaultReport } from './meters/metered';
import { faultChannel, faultyBatchShare } from './meters/metered';
import { numberSetting } from '../functions/shared/config';

/**
 * No loss: events through the real local pipeline while one consumer batch in ten meets failing
 * storage (meters/storage-faults.ts: each write of such a batch fails with even odds, so batches are
 * left half written). Failed messages come back after a second (the poller's retry delay, standing
 * in for the visibility timeout) and, after 5 receives, would move to the DLQ. Then every event is
 * read back through the events API, following `next`: each accepted uuid must be listed exactly once.
 */
const requests = numberSetting('BENCH_REQUESTS', 4000);
/** 1 to 10 events per request, as browsers send them: one message each, so many consumer batches. */
const eventsOf = (request: number): number => 1 + (request % 10);
const concurrency = 8;

async function main(): Promise<void> {
  const faults = { batches: 0, faultyBatches: 0, failedWrites: 0 };
  const channel = new BroadcastChannel(faultChannel);
  channel.onmessage = (message: unknown) => {
    const counted = (message as { data: FaultReport }).data;
    faults.batches += counted.batches;
    faults.faultyBatches += counted.faultyBatches;
    faults.failedWrites += counted.failedWrites;
  };
  const bench = await startBenchFlock({
    // The consumer logs every injected failure as an error: expected here.
    logLevel: 'SILENT',
    retryDelaySeconds: 1,
    functionPreload: [join(__dirname, 'meters/storage-faults.ts')],
    onError: () => undefined,
  });
  const { flock, sqs } = bench;
  const { apiUrl, projectApiKey, projectId, personalApiKey } = flock.credentials;

  // Accept: every uuid the API answered 200 for.
  const accepted = new Set<string>();
  let sent = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < requests) {
        const r = sent++;
        const batch = Array.from({ length: eventsOf(r) }, (_, i) => sampleEvent(r * 10 + i, 50));
        const response = await fetch(`${apiUrl}/batch/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: projectApiKey, batch }),
        });
        if (response.status !== 200) throw new Error(`capture answered ${response.status}`);
        for (const event of batch) accepted.add(String(event.uuid));
      }
    }),
  );
  await waitUntilQueueEmpty(sqs, flock.endpoints.queueUrl, 200);
  const deadLettered = await queueDepth(sqs, flock.endpoints.deadLetterQueueUrl);

  // Read back: every page of the events list.
  const listed = await listEventIds(apiUrl, projectId, personalApiKey);
  const missing = [...accepted].filter((uuid) => !listed.has(uuid)).length;
  const duplicated = [...listed.values()].filter((count) => count > 1).length;
  const unexpected = [...listed.keys()].filter((uuid) => !accepted.has(uuid)).length;

  report(
    `no loss: ${accepted.size} events, ${Math.round(faultyBatchShare * 100)}% of consumer batches with failing storage`,
    {
      'consumer batches': faults.batches,
      '  with failing storage': faults.faultyBatches,
      '  writes failed': faults.failedWrites,
      'messages in the DLQ': deadLettered,
      'events listed': [...listed.values()].reduce((a, b) => a + b, 0),
      missing,
      'listed more than once': duplicated,
      'listed, never accepted': unexpected,
    },
    'missing 0, more than once 0',
  );
  channel.close();
  await bench.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
