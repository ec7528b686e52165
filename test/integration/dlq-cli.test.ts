import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Message } from '@aws-sdk/client-sqs';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createActiveTable, createTableInput } from '../../bin/local/emulators';
import type { DeadMessage, QueueStats, RedriveResult } from '../../bin/ops/dlq';
import { eventsTable } from '../../functions/shared/db/schema';
import { postJson, privateApi } from '../helpers/api';
import { dlqCli, dlqCliJson } from '../helpers/dlq-cli';
import type { LocalServer } from '../helpers/local-server';
import { eventually, startLocalServer } from '../helpers/local-server';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

interface EventsPage {
  results: { id: string; event: string }[];
}

describe('npm run flock -- dlq, against npm start', () => {
  let server: LocalServer;
  let dynamodb: DynamoDBClient;

  const dlq = (...args: string[]): Promise<string> => dlqCli(server, ...args);
  const dlqJson = <T>(...args: string[]): Promise<T> => dlqCliJson<T>(server, ...args);
  const dlqDepth = async (): Promise<number> =>
    (await dlqJson<QueueStats[]>('stats')).find((queue) => queue.queue === 'dlq')!.visible;

  const capture = async (uuid: string, event: string, distinctId: string): Promise<void> => {
    const response = await postJson(server, '/capture/', {
      api_key: server.credentials.projectApiKey,
      event,
      uuid,
      properties: { distinct_id: distinctId },
    });
    expect(response.status).toBe(200);
  };

  beforeAll(async () => {
    server = await startLocalServer({ retryDelaySeconds: 1 });
    dynamodb = new DynamoDBClient({
      endpoint: server.endpoints.dynamodbEndpoint,
      region: 'us-east-1',
      credentials,
    });
  });

  afterAll(async () => {
    dynamodb.destroy();
    await server.stop();
  });

  it('lists poison messages with why they failed, redrives them once fixed, and purges only with --yes', async () => {
    // Prepare: the events table disappears, so every attempt to store fails.
    await dynamodb.send(new DeleteTableCommand({ TableName: server.endpoints.tables.events }));
    const uuids = [randomUUID(), randomUUID()];
    await capture(uuids[0]!, 'doomed', 'alice');
    await capture(uuids[1]!, 'doomed too', 'bob');
    await eventually(
      'both poison messages in the DLQ',
      async () => ((await dlqDepth()) === 2 ? true : undefined),
      60_000,
    );

    // Act: list, then list again (listing consumes nothing).
    const listed = await dlqJson<DeadMessage[]>('list', '--limit', '10');
    const again = await dlqJson<DeadMessage[]>('list');

    // Assess: decoded, with the failure records of all five attempts.
    expect(listed).toHaveLength(2);
    expect(again.map((message) => message.messageId).sort()).toEqual(
      listed.map((message) => message.messageId).sort(),
    );
    const alice = listed.find((message) => message.distinctIds.includes('alice'))!;
    expect(alice).toMatchObject({
      projectId: server.credentials.projectId,
      eventCount: 1,
      eventNames: ['doomed'],
      distinctIds: ['alice'],
    });
    expect(alice.receiveCount).toBeGreaterThanOrEqual(1);
    expect(alice.sizeBytes).toBeGreaterThan(0);
    expect(alice.firstSent).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(alice.failures.map((failure) => failure.attempt)).toEqual([1, 2, 3, 4, 5]);
    // The record names DynamoDB's own error, not just the stage that failed.
    expect(alice.failures[0]).toMatchObject({
      errorName: 'ResourceNotFoundException',
      errorMessage: expect.stringMatching(/non-existent table|not found/i),
    });
    const shown = await dlqJson<DeadMessage>('show', alice.messageId);
    // Each peek is a receive, so only the receive count moves.
    expect({ ...shown, receiveCount: 0 }).toEqual({ ...alice, receiveCount: 0 });
    expect(shown.receiveCount).toBeGreaterThan(alice.receiveCount);
    expect(await dlq('show', alice.messageId)).toContain('attempt 5');
    expect(await dlqDepth()).toBe(2);

    // Act: purge without --yes (and no terminal to ask on) names the queue and its depth, and refuses.
    await expect(dlq('purge')).rejects.toMatchObject({
      stderr: expect.stringMatching(
        /^Purge the dead-letter queue \S+ \(http\S+\): 2 visible, 0 in flight and 0 delayed message\(s\) are deleted for good\.\n.*--yes/,
      ),
    });
    expect(await dlqDepth()).toBe(2);

    // Act: fix the cause, redrive.
    await createActiveTable(dynamodb, createTableInput(eventsTable));
    const redriven = await dlqJson<RedriveResult>('redrive');

    // Assess: both moved (fauxqs lacks StartMessageMoveTask), each event stored exactly once.
    expect(redriven).toMatchObject({ method: 'receive-send-delete', moved: 2, failed: 0 });
    const eventsPath = `/api/projects/${server.credentials.projectId}/events/`;
    const stored = await eventually(
      'both redriven events to be stored',
      async () => {
        const page = (await privateApi(server).get<EventsPage>(eventsPath)).body;
        return uuids.every((uuid) => page.results.some((event) => event.id === uuid)) ? page : undefined;
      },
      30_000,
    );
    for (const uuid of uuids) expect(stored.results.filter((event) => event.id === uuid)).toHaveLength(1);
    expect(await dlqDepth()).toBe(0);
  }, 150_000);

  it('purges with --yes', async () => {
    // Prepare: one more poison message.
    await dynamodb.send(new DeleteTableCommand({ TableName: server.endpoints.tables.events }));
    await capture(randomUUID(), 'doomed', 'carol');
    await eventually(
      'the poison message in the DLQ',
      async () => ((await dlqDepth()) === 1 ? true : undefined),
      60_000,
    );

    // Act
    const result = await dlqJson<{ purged: boolean }>('purge', '--yes');

    // Assess
    expect(result).toEqual({ purged: true });
    expect(await dlqDepth()).toBe(0);
  }, 120_000);
});

describe('npm run flock -- dlq stats during a backlog, against npm start', () => {
  let server: LocalServer;
  let sqs: SQSClient;
  let holdDir: string;
  const backlog = 150;

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
    // Prepare: every exports worker holds a batch, so the rest of the backlog waits, visible.
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
