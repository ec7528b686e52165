import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalFunction } from '../../../bin/local/function-host';
import { QueuePoller } from '../../../bin/local/poller';
import { FullBatchFailureError } from '../../../functions/shared/queue/batch-failure';

const sqs = mockClient(SQSClient);

beforeEach(() => {
  sqs.reset();
});

afterAll(() => {
  sqs.restore();
});

const messages = ['a', 'b', 'c'].map((id) => ({
  MessageId: id,
  ReceiptHandle: `receipt-${id}`,
  Body: '{}',
  Attributes: { ApproximateReceiveCount: '2' },
}));

/** Runs the poller until `consumer` has been invoked once with the three messages, then stops it. */
async function pollOnce(invoke: (event: SQSEvent) => Promise<SQSBatchResponse>): Promise<void> {
  // Later receives wait, as a long poll on an empty queue does.
  let received = false;
  sqs.on(ReceiveMessageCommand).callsFake(async () => {
    if (!received) {
      received = true;
      return { Messages: messages };
    }
    await sleep(20);
    return { Messages: [] };
  });
  sqs.on(DeleteMessageBatchCommand).resolves({});
  sqs.on(ChangeMessageVisibilityBatchCommand).resolves({});
  let invoked!: () => void;
  const done = new Promise<void>((resolve) => (invoked = resolve));
  const consumer = {
    invoke: async (event: SQSEvent) => {
      try {
        return await invoke(event);
      } finally {
        setTimeout(invoked, 50);
      }
    },
  } as unknown as LocalFunction;
  const poller = new QueuePoller({
    endpoint: 'http://127.0.0.1:1',
    queueUrl: 'http://127.0.0.1:1/000000000000/ingest',
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:ingest',
    consumer,
    eventSource: { batchSize: 3, maxBatchingWindowSeconds: 0 },
    concurrency: 1,
    retryDelaySeconds: 1,
    onError: () => undefined,
  });
  poller.start();
  await done;
  await poller.stop();
}

/** The local poller plays the SQS event source mapping, partial batch responses and thrown errors alike. */
describe('local queue poller', () => {
  it('returns every message of a batch to the queue when the handler throws', async () => {
    await pollOnce(() => Promise.reject(new FullBatchFailureError(3)));
    expect(sqs).not.toHaveReceivedCommand(DeleteMessageBatchCommand);
    expect(sqs).toHaveReceivedCommandWith(ChangeMessageVisibilityBatchCommand, {
      Entries: messages.map((message, n) => ({
        Id: String(n),
        ReceiptHandle: message.ReceiptHandle,
        VisibilityTimeout: 1,
      })),
    });
  });

  it('deletes what succeeded and returns only the reported failures', async () => {
    await pollOnce(async () => ({ batchItemFailures: [{ itemIdentifier: 'b' }] }));
    expect(sqs).toHaveReceivedCommandWith(DeleteMessageBatchCommand, {
      Entries: [
        { Id: '0', ReceiptHandle: 'receipt-a' },
        { Id: '1', ReceiptHandle: 'receipt-c' },
      ],
    });
    expect(sqs).toHaveReceivedCommandWith(ChangeMessageVisibilityBatchCommand, {
      Entries: [{ Id: '0', ReceiptHandle: 'receipt-b', VisibilityTimeout: 1 }],
    });
  });
});
