import { DynamoDBClient, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResourceOwner } from '../../../bin/local/dynalite-iterators';
import { dynaliteAbstractLevel } from '../../../bin/local/dynalite-iterators';
import type { EmulatorServer } from '../../../bin/local/emulators';
import { createActiveTable, startDynalite } from '../../../bin/local/emulators';

/**
 * dynalite on disk must close the LevelDB iterator of every read: an iterator left open pins its
 * snapshot, and `npm start`'s memory grew by about 1 GB an hour under the soak's traffic.
 */
describe('dynalite on disk closes the iterators its reads open', () => {
  const attached = new Set<unknown>();
  const prototype = dynaliteAbstractLevel().AbstractLevel.prototype;
  const { attachResource, detachResource } = prototype;
  let dataDir: string;
  let server: EmulatorServer;

  beforeAll(() => {
    prototype.attachResource = function (this: ResourceOwner, resource: unknown) {
      attached.add(resource);
      attachResource.call(this, resource);
    };
    prototype.detachResource = function (this: ResourceOwner, resource: unknown) {
      attached.delete(resource);
      detachResource.call(this, resource);
    };
  });

  afterAll(async () => {
    prototype.attachResource = attachResource;
    prototype.detachResource = detachResource;
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves no iterator open after 60 Queries, read to the end or cut by Limit', async () => {
    // Prepare
    dataDir = mkdtempSync(join(tmpdir(), 'flock-dynalite-'));
    server = await startDynalite(join(dataDir, 'dynamodb'));
    const client = new DynamoDBClient({
      endpoint: server.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await createActiveTable(client, {
      TableName: 'leaks',
      KeySchema: [
        { AttributeName: 'PK', KeyType: 'HASH' },
        { AttributeName: 'SK', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'PK', AttributeType: 'S' },
        { AttributeName: 'SK', AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    });
    for (let i = 0; i < 20; i += 1)
      await client.send(
        new PutItemCommand({ TableName: 'leaks', Item: { PK: { S: 'p' }, SK: { S: `s${i}` } } }),
      );
    attached.clear();

    // Act
    for (let i = 0; i < 60; i += 1)
      await client.send(
        new QueryCommand({
          TableName: 'leaks',
          KeyConditionExpression: 'PK = :p',
          ExpressionAttributeValues: { ':p': { S: 'p' } },
          ...(i % 2 === 0 ? { Limit: 3 } : {}),
        }),
      );
    client.destroy();
    // A stream's destroy closes its iterator asynchronously.
    await new Promise((resolve) => setTimeout(resolve, 100));

    // Assess
    expect(attached.size).toBe(0);
  });
});
