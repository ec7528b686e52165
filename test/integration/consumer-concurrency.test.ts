import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConsumerSpan } from '../fixtures/consumer-spans';
import { consumerSpansDirEnv, consumerSpansFile } from '../fixtures/consumer-spans';
import type { CaptureMessage } from '../../functions/shared/queue/message';
import type { LocalServer } from '../helpers/local-server';
import { eventually, sqsClientOf, startLocalServer } from '../helpers/local-server';

const messages = 100;

/**
 * Lambda runs one invocation per sandbox at a time, and a function's timeout is that invocation's
 * alone. The local event source must not hand a consumer container a batch while it still runs
 * another: the batches would share its CPU while each one's 30 s timeout runs, and a timeout ends the
 * container with every batch in it.
 */
describe('the local consumer event source', () => {
  let server: LocalServer;
  let sqs: SQSClient;
  let spansDir: string;

  beforeAll(async () => {
    spansDir = mkdtempSync(join(tmpdir(), 'flock-consumer-spans-'));
    server = await startLocalServer({
      functionPreload: [join(__dirname, '../fixtures/consumer-spans.ts')],
      env: { [consumerSpansDirEnv]: spansDir },
    });
    sqs = sqsClientOf(server);
  });

  afterAll(async () => {
    sqs.destroy();
    await server.stop();
    rmSync(spansDir, { recursive: true, force: true });
  });

  const spans = (): ConsumerSpan[] => {
    const file = join(spansDir, consumerSpansFile);
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as ConsumerSpan);
  };

  it('never runs two batches in one container at once, however many messages wait', async () => {
    // Prepare: a backlog arriving at once, in ten requests, so every idle poller wakes with messages.
    const message = (): CaptureMessage => ({
      v: 1,
      project_id: server.credentials.projectId,
      now: new Date().toISOString(),
      sent_at: null,
      ip: '127.0.0.1',
      site_url: null,
      events: [{ uuid: randomUUID(), distinct_id: 'concurrency', data: { event: 'queued', properties: {} } }],
    });
    const requests = Array.from({ length: messages / 10 }, () =>
      sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: server.endpoints.queueUrl,
          Entries: Array.from({ length: 10 }, (_, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify(message()),
          })),
        }),
      ),
    );

    // Act: every message is handed to the consumer (each invocation is held a second: see the fixture).
    await Promise.all(requests);
    await eventually(
      `the consumer's invocations of the ${messages} messages`,
      async () => (spans().reduce((sum, span) => sum + span.records, 0) >= messages ? true : undefined),
      60_000,
    );

    // Assert: per container (thread), each invocation ends before the next one starts.
    const byThread = new Map<number, ConsumerSpan[]>();
    for (const span of spans()) byThread.set(span.thread, [...(byThread.get(span.thread) ?? []), span]);
    const overlaps = [...byThread.values()].flatMap((list) =>
      list
        .sort((a, b) => a.started - b.started)
        .slice(1)
        .filter((span, i) => span.started < list[i]!.ended),
    );
    expect(spans().length).toBeGreaterThan(1);
    expect(overlaps).toEqual([]);
  }, 120_000);
});
