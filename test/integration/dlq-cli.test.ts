import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
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
    // Each of a message's five receives is retried after 1 s and gathered for 0.2 s (not the stack's 2 s).
    server = await startLocalServer({ retryDelaySeconds: 1, ingestBatchingWindowSeconds: 0.2 });
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
