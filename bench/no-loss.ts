import '../bin/local/quiet-sdk';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import { startBenchFlock } from './support/local-flock';
import { benchSetting, listEventIds, queueDepth, report, sampleEvent, waitUntilQueueEmpty } from './lib';
import type { FaultReport } from './meters/metered';
import { faultChannel, faultyBatchShare } from './meters/metered';
import { captureLimits } from '../functions/shared/queue/definitions';

/**
 * No loss: events through the real local pipeline while one consumer batch in ten meets failing
 * storage (meters/storage-faults.ts: each write of such a batch fails with even odds, so batches are
 * left half written). Failed messages come back after a second (the poller's retry delay, standing
 * in for the visibility timeout) and, after 5 receives, would move to the DLQ. Then every event is
 * read back through the events API, following `next`: each accepted uuid must be listed exactly once.
 *
 * One request in ten also carries hostile events beside its valid ones: an event over capture's
 * per-event cap (dropped at capture, never stored), and events capture accepts but that test the
 * consumer's limits (a person `$set` of 100 KB, so a few persons outgrow a DynamoDB item; a lone
 * surrogate in the event name; a timestamp of 1970). None of them may cost a valid event its place:
 * every accepted event is stored once, the oversized ones never, and nothing is dead-lettered.
 */
const requests = benchSetting('BENCH_REQUESTS', 4000, 100);
/** 1 to 10 events per request, as browsers send them: one message each, so many consumer batches. */
const eventsOf = (request: number): number => 1 + (request % 10);
const concurrency = 8;
const hostileEvery = 10;

/** The hostile events a request carries beside its valid ones: those capture must drop, and the rest. */
function hostileEvents(request: number): {
  dropped: Record<string, unknown>[];
  kept: Record<string, unknown>[];
} {
  const base = sampleEvent(request * 10, 50);
  return {
    dropped: [
      { ...base, uuid: randomUUID(), properties: { blob: 'x'.repeat(captureLimits.maxEventBytes + 1024) } },
    ],
    kept: [
      {
        ...base,
        uuid: randomUUID(),
        distinct_id: `heavy-${request % 7}`,
        properties: { $set: { [`trait ${request}`]: 'x'.repeat(100_000) } },
      },
      { ...base, uuid: randomUUID(), event: `lone \ud800 surrogate ${request % 3}` },
      { ...base, uuid: randomUUID(), timestamp: '1970-01-01T00:00:00.000Z' },
    ],
  };
}

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
  const droppedAtCapture = new Set<string>();
  let sent = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < requests) {
        const r = sent++;
        const batch = Array.from({ length: eventsOf(r) }, (_, i) => sampleEvent(r * 10 + i, 50));
        const hostile = r % hostileEvery === 0 ? hostileEvents(r) : { dropped: [], kept: [] };
        batch.push(...hostile.kept, ...hostile.dropped);
        const response = await fetch(`${apiUrl}/batch/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: projectApiKey, batch }),
        });
        if (response.status !== 200) throw new Error(`capture answered ${response.status}`);
        for (const event of hostile.dropped) droppedAtCapture.add(String(event.uuid));
        for (const event of batch)
          if (!droppedAtCapture.has(String(event.uuid))) accepted.add(String(event.uuid));
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
  const oversizedStored = [...droppedAtCapture].filter((uuid) => listed.has(uuid)).length;

  report(
    `no loss: ${accepted.size} events (hostile ones in 1 request of ${hostileEvery}), ${Math.round(faultyBatchShare * 100)}% of consumer batches with failing storage`,
    {
      'consumer batches': faults.batches,
      '  with failing storage': faults.faultyBatches,
      '  writes failed': faults.failedWrites,
      'messages in the DLQ': deadLettered,
      'events listed': [...listed.values()].reduce((a, b) => a + b, 0),
      missing,
      'listed more than once': duplicated,
      'listed, never accepted': unexpected,
      'oversized events sent': droppedAtCapture.size,
      '  of them stored': oversizedStored,
    },
    'missing 0, more than once 0, in the DLQ 0, oversized stored 0',
    {
      figure: `${accepted.size} events: ${missing} missing, ${duplicated} more than once, ${deadLettered} in the DLQ, ${oversizedStored} oversized stored`,
      met: missing === 0 && duplicated === 0 && deadLettered === 0 && oversizedStored === 0,
    },
  );
  channel.close();
  await bench.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
