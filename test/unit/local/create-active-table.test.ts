import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { AddressInfo } from 'node:net';
import { createActiveTable } from '../../../bin/local/emulators';

/**
 * dynalite makes a created table ACTIVE on a timer; a write that comes first is refused as
 * ResourceNotFound. CI's loaded machine met it once with a timer of 0 ms: here the timer is 200 ms so
 * the write always comes first unless the helper waits.
 */
describe('createActiveTable', () => {
  it('returns only once the table takes writes', async () => {
    // Prepare
    const { default: dynalite } = await import('dynalite');
    const server = dynalite({ createTableMs: 200 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new DynamoDBClient({
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });

    try {
      // Act
      await createActiveTable(client, {
        TableName: 'slow',
        KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      });

      // Assess
      await expect(
        client.send(new PutItemCommand({ TableName: 'slow', Item: { PK: { S: 'p' } } })),
      ).resolves.toBeDefined();
    } finally {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
