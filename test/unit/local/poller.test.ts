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
import { QueuePoller, windowPollMs } from '../../../bin/local/poller';
import { FullBatchFailureError } from '../../../functions/shared/queue/batch-failure';
import { virtualTimers } from '../../helpers/virtual-timers';

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

/** A poller of the ingest queue with one worker, handing its batches to `consumer`. */
const ingestPoller = (
  consumer: LocalFunction,
  eventSource: { batchSize: number; maxBatchingWindowSeconds: number },
): QueuePoller =>
  new QueuePoller({
    endpoint: 'http://127.0.0.1:1',
    queueUrl: 'http://127.0.0.1:1/000000000000/ingest',
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:ingest',
    consumer,
    eventSource,
    concurrency: 1,
    retryDelaySeconds: 1,
    onError: () => undefined,
  });

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
  const poller = ingestPoller(consumer, { batchSize: 3, maxBatchingWindowSeconds: 0 });
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

  it('gathers the next batch while one runs, and invokes it only once that one returned', async () => {
    // Prepare: two batches of one message each, then an empty queue.
    const queued = [messages.slice(0, 1), messages.slice(1, 2)];
    sqs.on(ReceiveMessageCommand).callsFake(async () => {
      const next = queued.shift();
      if (next) return { Messages: next };
      await sleep(20);
      return { Messages: [] };
    });
    sqs.on(DeleteMessageBatchCommand).resolves({});
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    let secondReturned!: () => void;
    const done = new Promise<void>((resolve) => (secondReturned = resolve));
    const invoked: string[][] = [];
    let running = 0;
    let mostAtOnce = 0;
    const consumer = {
      invoke: async (event: SQSEvent) => {
        invoked.push(event.Records.map((record) => record.messageId));
        mostAtOnce = Math.max(mostAtOnce, ++running);
        if (invoked.length === 1) await firstHeld;
        running--;
        if (invoked.length === 2) secondReturned();
        return { batchItemFailures: [] };
      },
    } as unknown as LocalFunction;
    const poller = ingestPoller(consumer, { batchSize: 1, maxBatchingWindowSeconds: 0 });

    // Act: hold the first batch until the second has been received (at most 2 s).
    poller.start();
    for (let waited = 0; queued.length > 0 && waited < 2000; waited += 10) await sleep(10);
    const receivedWhileFirstRan = queued.length === 0;
    const invokedWhileFirstRan = invoked.map((ids) => [...ids]);
    releaseFirst();
    await done;
    await poller.stop();

    // Assert: the second batch was gathered during the first, and invoked after it, never beside it.
    expect(receivedWhileFirstRan).toBe(true);
    expect(invokedWhileFirstRan).toEqual([['a']]);
    expect(invoked).toEqual([['a'], ['b']]);
    expect(mostAtOnce).toBe(1);
  });

  it('asks for more every windowPollMs while a batch gathers, and invokes when its window closes', async () => {
    // Prepare: one message, then an empty queue (answered at once, as a short poll is).
    let first = true;
    sqs.on(ReceiveMessageCommand).callsFake(() => {
      if (!first) return { Messages: [] };
      first = false;
      return { Messages: messages.slice(0, 1) };
    });
    sqs.on(DeleteMessageBatchCommand).resolves({});
    const timers = virtualTimers();
    let waitedBeforeInvoke = -1;
    let invoked!: () => void;
    const done = new Promise<void>((resolve) => (invoked = resolve));
    const consumer = {
      invoke: () => {
        waitedBeforeInvoke = timers.waits.reduce((sum, wait) => sum + wait, 0);
        invoked();
        return Promise.resolve({ batchItemFailures: [] });
      },
    } as unknown as LocalFunction;
    const poller = ingestPoller(consumer, { batchSize: 10, maxBatchingWindowSeconds: 1 });

    // Act
    let receivesInWindow: number;
    try {
      poller.start();
      await done;
      receivesInWindow = sqs.commandCalls(ReceiveMessageCommand).length;
      await poller.stop();
    } finally {
      timers.restore();
    }

    // Assert: one receive per windowPollMs of the 1 s window (and the first), not one per 20 ms,
    // and the batch invoked once the waits between them made up the window, not before or after.
    expect(receivesInWindow).toBeLessThanOrEqual(1000 / windowPollMs + 2);
    expect(timers.waits.every((wait) => wait <= windowPollMs)).toBe(true);
    expect(waitedBeforeInvoke).toBe(1000);
  });
});
