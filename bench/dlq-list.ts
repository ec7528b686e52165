import '../bin/local/quiet-sdk';
import { GetQueueAttributesCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { deadLetterOldestAges, list, peekVisibilitySeconds } from '../bin/ops/dlq';
import { readFailures } from '../functions/shared/db/failures';
import { startBenchFlock } from './support/local-flock';
import { benchSetting, report, round, sampleEvent } from './lib';

/**
 * `dlq list` over a full dead-letter queue: 10,000 capture messages are put on the local DLQ, then
 * listed with `--limit 10000`. The listing must finish and leave every message in the DLQ (visible
 * again once it ends). 127.0.0.1 only (the local emulators), bounded by BENCH_MESSAGES.
 */
const messages = benchSetting('BENCH_MESSAGES', 10_000, 200);

async function main(): Promise<void> {
  const bench = await startBenchFlock({ logLevel: 'SILENT' });
  const { sqs } = bench;
  const dlqUrl = bench.flock.endpoints.deadLetterQueueUrl;
  const table = bench.flock.endpoints.tables.main;
  try {
    for (let start = 0; start < messages; start += 10) {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: dlqUrl,
          Entries: Array.from({ length: Math.min(10, messages - start) }, (_, index) => {
            const data = sampleEvent(start + index);
            return {
              Id: String(index),
              MessageBody: JSON.stringify({
                v: 1,
                project_id: 1,
                now: new Date().toISOString(),
                sent_at: null,
                ip: null,
                site_url: null,
                events: [{ uuid: randomUUID(), distinct_id: `user-${(start + index) % 10}`, data }],
              }),
            };
          }),
        }),
      );
    }

    const started = performance.now();
    const listed = await list(
      {
        sqs,
        queues: { source: bench.flock.endpoints.queueUrl, dlq: dlqUrl },
        allQueues: { ingest: bench.flock.endpoints.queueUrl, dlq: dlqUrl },
        oldestAges: deadLetterOldestAges(sqs, ['dlq']),
        readFailures: (id) => readFailures(table, id),
      },
      messages,
    );
    const seconds = (performance.now() - started) / 1000;
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: dlqUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    const visible = Number(Attributes?.ApproximateNumberOfMessages);
    report(
      'dlq list over a full DLQ',
      {
        'messages in the DLQ': messages,
        'distinct messages listed': listed.length,
        'listing time (s)': round(seconds),
        'visible after listing': visible,
        'invisible after listing': Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
        'longest a message was hidden (s)': peekVisibilitySeconds,
      },
      'finishes; every message still in the DLQ and visible',
      {
        figure: `${listed.length} of ${messages} listed in ${round(seconds, 1)} s, ${visible} visible after`,
        met: listed.length === messages && visible === messages,
      },
    );
  } finally {
    await bench.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
