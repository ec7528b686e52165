import type { Message } from '@aws-sdk/client-sqs';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { QueueStats } from '../../bin/ops/dlq';
import { dlqCliJson } from '../helpers/dlq-cli';
import type { LocalServer } from '../helpers/local-server';
import { eventually, startLocalServer } from '../helpers/local-server';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * `npm run flock -- dlq stats` reads the live queues of a server whose exports are held (a file of
 * its own: dlq-cli.test.ts's dead-lettering waits on another worker meanwhile).
 */
describe('npm run flock -- dlq stats during a backlog, against npm start', () => {
  let server: LocalServer;
  let sqs: SQSClient;
  let holdDir: string;
  // Five exports workers each hold a batch of 20 and have gathered the next one (bin/local/poller.ts):
  // 200 in flight, the other 50 wait visible.
  const backlog = 250;

  beforeAll(async () => {
    server = await startLocalServer({ functionPreload: [join(__dirname, '../fixtures/hold-exports.ts')] });
    sqs = new SQSClient({ endpoint: server.endpoints.sqsEndpoint, region: 'us-east-1', credentials });
    holdDir = mkdtempSync(join(tmpdir(), 'flock-hold-'));
  });

  afterAll(async () => {
    rmSync(holdDir, { recursive: true, force: true });
    sqs.destroy();
    await server.stop();
  });

  const depth = async (queueUrl: string): Promise<{ visible: number; inFlight: number }> => {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return {
      visible: Number(Attributes.ApproximateNumberOfMessages),
      inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible),
    };
  };

  const receiveAll = async (queueUrl: string): Promise<Message[]> => {
    const received: Message[] = [];
    for (;;) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 60,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
          WaitTimeSeconds: 0,
        }),
      );
      if (Messages.length === 0) return received;
      received.push(...Messages);
    }
  };

  it('reads the live queues without receiving from them: receive counts stay unchanged', async () => {
    // Prepare: every exports worker holds a batch and its next one, so the rest of the backlog waits, visible.
    const queueUrl = server.endpoints.exportsQueueUrl;
    const holdFile = join(holdDir, 'hold');
    writeFileSync(holdFile, '');
    for (let start = 0; start < backlog; start += 10) {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: Array.from({ length: 10 }, (_, index) => ({
            Id: String(index),
            MessageBody: JSON.stringify({ hold: holdFile, n: start + index }),
          })),
        }),
      );
    }
    // Every worker holds its batch once the in-flight count stops moving.
    let previous = await depth(queueUrl);
    for (let second = 0; second < 30; second++) {
      await sleep(1_000);
      const current = await depth(queueUrl);
      if (current.inFlight === previous.inFlight && current.inFlight > 0) break;
      previous = current;
    }
    const waiting = previous.visible;
    expect(waiting).toBeGreaterThan(0);

    // Act: an operator checks the queues twice during the backlog.
    const first = await dlqCliJson<QueueStats[]>(server, 'stats');
    await dlqCliJson<QueueStats[]>(server, 'stats');

    // Assess: the waiting messages were never received by stats (the test's own receive is the first).
    expect(first.find((queue) => queue.queue === 'exports')).toMatchObject({ visible: waiting });
    const received = await receiveAll(queueUrl);
    expect(received).toHaveLength(waiting);
    expect(new Set(received.map((message) => message.Attributes?.ApproximateReceiveCount))).toEqual(
      new Set(['1']),
    );

    // Clean up: the waiting messages are done, the held batches are released.
    for (let start = 0; start < received.length; start += 10) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: received.slice(start, start + 10).map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle!,
          })),
        }),
      );
    }
    rmSync(holdFile);
    await eventually(
      'no message in flight once the held exports are released',
      async () => ((await depth(queueUrl)).inFlight === 0 ? true : undefined),
      30_000,
    );
  }, 120_000);
});
