import { CreateQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LocalFunction } from '../../bin/local/function-host';
import { QueuePoller } from '../../bin/local/poller';
import type { LocalServer } from '../helpers/local-server';
import { sharedLocalServer, sqsClientOf } from '../helpers/local-server';

/**
 * A pass-through to the SQS emulator that counts the ReceiveMessage requests through it: what the
 * poller asks of the queue, seen from outside.
 */
async function countingProxy(
  target: string,
): Promise<{ url: string; receives: () => number; close: () => void }> {
  const { hostname, port } = new URL(target);
  let receives = 0;
  const proxy: Server = createServer((incoming, outgoing) => {
    if (String(incoming.headers['x-amz-target']).endsWith('.ReceiveMessage')) receives++;
    const forwarded = request(
      { hostname, port, path: incoming.url, method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    // The poller abandoning its wait closes the request: so does the proxy's towards the emulator.
    outgoing.on('close', () => forwarded.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    receives: () => receives,
    close: () => proxy.close(),
  };
}

describe('the local event source on an idle queue', () => {
  let server: LocalServer;
  let sqs: SQSClient;

  beforeAll(async () => {
    server = await sharedLocalServer('local-poller');
    sqs = sqsClientOf(server);
  });

  afterAll(async () => {
    sqs.destroy();
    await server.stop();
  });

  it('waits on the queue in one long poll per poller, wakes at once for a message and stops at once', async () => {
    // Prepare: a queue of the test's own, polled through the counting proxy by two pollers.
    const { QueueUrl: queueUrl } = await sqs.send(
      new CreateQueueCommand({ QueueName: `idle-${randomUUID()}` }),
    );
    const proxy = await countingProxy(server.endpoints.sqsEndpoint);
    const bodies: string[] = [];
    let delivered!: () => void;
    const delivery = new Promise<void>((resolve) => (delivered = resolve));
    const consumer = {
      invoke: (event: SQSEvent) => {
        bodies.push(...event.Records.map((record) => record.body));
        delivered();
        return Promise.resolve({ batchItemFailures: [] });
      },
    } as unknown as LocalFunction;
    const poller = new QueuePoller({
      endpoint: proxy.url,
      queueUrl: queueUrl!,
      queueArn: `arn:aws:sqs:us-east-1:000000000000:${queueUrl!.split('/').pop()}`,
      consumer,
      eventSource: { batchSize: 1, maxBatchingWindowSeconds: 0 },
      concurrency: 2,
    });

    try {
      // Act: three idle seconds, then a message.
      poller.start();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const idleReceives = proxy.receives();
      const sentAt = Date.now();
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'wake up' }));
      await delivery;
      const wokenAfterMs = Date.now() - sentAt;
      const stopAt = Date.now();
      await poller.stop();
      const stoppedAfterMs = Date.now() - stopAt;

      // Assess: one waiting receive per poller (waiting 1 s at a time, two pollers asked 6 times),
      // the message handed over without waiting out the 20 s poll, and stop() not waiting it out either.
      expect(idleReceives).toBe(2);
      expect(bodies).toEqual(['wake up']);
      expect(wokenAfterMs).toBeLessThan(10_000);
      expect(stoppedAfterMs).toBeLessThan(10_000);
    } finally {
      await poller.stop();
      proxy.close();
    }
  });
});
