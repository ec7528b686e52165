import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeadMessage, QueueStats, RedriveResult } from '../../bin/ops/dlq';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { toEventItem } from '../../functions/shared/db/events';
import type { StoredEvent } from '../../functions/shared/domain/event';
import { packLakeMessages, toLakeEvent } from '../../functions/shared/queue/lake-message';
import { dlqCliJson } from '../helpers/dlq-cli';
import { queryLake } from '../helpers/lake';
import type { LocalServer } from '../helpers/local-server';
import { documentClientOf, eventually, startLocalServer } from '../helpers/local-server';

/**
 * `npm run flock -- dlq --queue lake` against `npm start`: a dead-lettered lake message is listed
 * decoded, counted by `stats`, redriven into the lake queue and written by the lake function; the
 * same message redriven a second time adds no row.
 */
describe('npm run flock -- dlq --queue lake, against npm start', () => {
  let server: LocalServer;
  let sqs: SQSClient;

  beforeAll(async () => {
    server = await startLocalServer({ lakeIntervalSeconds: 1 });
    sqs = new SQSClient({
      endpoint: server.endpoints.sqsEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      useQueueUrlAsEndpoint: false,
    });
  });

  afterAll(async () => {
    sqs?.destroy();
    await server?.stop();
  });

  it('lists, counts and redrives the lake DLQ; the events reach the lake once', async () => {
    // Prepare: two events stored by an ingest message (planted as the consumer writes them) whose
    // lake hand-off was dead-lettered
    const { projectId } = server.credentials;
    const source = `dlq-lake-${randomUUID().slice(0, 8)}`;
    const event = (name: string): StoredEvent => ({
      uuid: randomUUID(),
      projectId,
      event: name,
      distinctId: 'dlq-lake-user',
      properties: {},
      timestamp: new Date().toISOString(),
      elementsChain: '',
      createdAt: new Date().toISOString(),
    });
    const events = [event('signup'), event('login')];
    const db = documentClientOf(server);
    for (const stored of events)
      await db.send(
        new PutCommand({
          TableName: server.endpoints.tables.events,
          Item: toEventItem(stored, randomUUID(), source),
        }),
      );
    db.destroy();
    const {
      bodies: [body],
    } = packLakeMessages(
      projectId,
      source,
      events.map((stored) => toLakeEvent(stored)),
    );
    const deadLetter = () =>
      sqs.send(
        new SendMessageCommand({ QueueUrl: server.endpoints.lakeDeadLetterQueueUrl, MessageBody: body }),
      );
    await deadLetter();
    const count = async (): Promise<number> =>
      Number(
        (
          await queryLake(
            server,
            `SELECT count(*) AS n FROM lake WHERE project_id = ${projectId} AND distinct_id = 'dlq-lake-user'`,
          )
        )[0]?.n ?? 0,
      );

    // Act + assess: list and stats
    const listed = await dlqCliJson<DeadMessage[]>(server, 'list', '--queue', 'lake');
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ projectId, eventCount: 2, eventNames: ['signup', 'login'] });
    const stats = await dlqCliJson<QueueStats[]>(server, 'stats');
    expect(stats.find((queue) => queue.queue === 'lake-dlq')).toMatchObject({
      visible: 1,
      oldestAgeFrom: 'peek',
    });
    expect(stats.map((queue) => queue.queue)).toContain('lake');

    // Act + assess: redrive, written by the lake function
    const redriven = await dlqCliJson<RedriveResult>(server, 'redrive', '--queue', 'lake');
    expect(redriven).toMatchObject({ moved: 1, failed: 0 });
    await eventually(
      'the redriven events in the lake',
      async () => ((await count()) === 2 ? true : undefined),
      90_000,
    );

    // Act + assess: the same message dead-lettered and redriven again adds nothing
    await deadLetter();
    expect(await dlqCliJson<RedriveResult>(server, 'redrive', '--queue', 'lake')).toMatchObject({ moved: 1 });
    await eventually(
      'the lake queue to drain',
      async () =>
        (await dlqCliJson<QueueStats[]>(server, 'stats')).every(
          (queue) => queue.visible === 0 && queue.inFlight === 0,
        )
          ? true
          : undefined,
      90_000,
    );
    await sleep(3_000);
    expect(await count()).toBe(2);
  }, 300_000);
});
