import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { postJson } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, sqsClientOf, startLocalServer } from '../helpers/local-server';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

describe('a message whose processing keeps failing', () => {
  let server: LocalServer;
  let sqs: SQSClient;

  beforeAll(async () => {
    // Each of a message's five receives is retried after 1 s and gathered for 0.2 s (not the stack's 2 s).
    server = await startLocalServer({ retryDelaySeconds: 1, ingestBatchingWindowSeconds: 0.2 });
    sqs = sqsClientOf(server);
  });

  afterAll(async () => {
    sqs.destroy();
    await server.stop();
  });

  it('is retried and lands in the DLQ after 5 receives', async () => {
    // Prepare: the events table disappears, so every attempt to store fails.
    const dynamodb = new DynamoDBClient({
      endpoint: server.endpoints.dynamodbEndpoint,
      region: 'us-east-1',
      credentials,
    });
    await dynamodb.send(new DeleteTableCommand({ TableName: server.endpoints.tables.events }));
    dynamodb.destroy();
    const uuid = randomUUID();

    // Act
    const response = await postJson(server, '/capture/', {
      api_key: server.credentials.projectApiKey,
      event: 'doomed',
      uuid,
      properties: { distinct_id: 'u' },
    });

    // Assess
    expect(response.status).toBe(200);
    const dead = await eventually(
      'the failing message in the DLQ',
      async () => {
        const result = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: server.endpoints.deadLetterQueueUrl,
            MessageSystemAttributeNames: ['ApproximateReceiveCount'],
            WaitTimeSeconds: 1,
          }),
        );
        return result.Messages?.[0];
      },
      45_000,
    );
    expect(dead.Body).toContain(uuid);
    expect(Number(dead.Attributes?.ApproximateReceiveCount)).toBeGreaterThanOrEqual(5);
    const main = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: server.endpoints.queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    expect(Number(main.Attributes?.ApproximateNumberOfMessages)).toBe(0);
    expect(Number(main.Attributes?.ApproximateNumberOfMessagesNotVisible)).toBe(0);
    // Its only record failed each time, so each invocation failed as a whole, as Lambda would count it.
    expect(server.output()).toContain('FullBatchFailureError');
  }, 60_000);
});
