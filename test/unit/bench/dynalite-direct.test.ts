import { DynamoDBClient, QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynaliteStore } from '../../../bench/support/dynalite-direct';
import { catchDynaliteStore, putDirectly } from '../../../bench/support/dynalite-direct';
import type { EmulatorServer } from '../../../bin/local/emulators';
import { createActiveTable, createTableInput, startDynalite } from '../../../bin/local/emulators';
import { itemsOfBatch } from '../../../functions/consumer/store';
import { personListingItem } from '../../../functions/shared/db/person-listing';
import { toPersonItem } from '../../../functions/shared/db/persons';
import { eventsTable, singleTable, tables } from '../../../functions/shared/db/schema';
import type { Person } from '../../../functions/shared/domain/persons';

/**
 * bench/cohort-calculation seeds its 100,000 persons and 200,000 events straight into dynalite's
 * store: what it stores must be exactly what the same items sent through a DynamoDB client leave,
 * items and index entries, binary attributes (deflated properties) and dropped undefined ones included.
 */
describe('putting items straight into the dynalite store', () => {
  let server: EmulatorServer;
  let store: DynaliteStore;
  let client: DynamoDBClient;

  beforeAll(async () => {
    ({ started: server, store } = await catchDynaliteStore(() => startDynalite(undefined)));
    client = new DynamoDBClient({
      endpoint: server.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    for (const definition of tables) await createActiveTable(client, createTableInput(definition));
  });

  afterAll(async () => {
    client.destroy();
    await server.stop();
  });

  /** A project's persons (with their listing items) and events, as the consumer lays them out. */
  function projectItems(projectId: number) {
    const person: Person = {
      uuid: '0190a4a0-0000-4000-8000-000000000001',
      createdAt: '2026-11-01T00:00:00.000Z',
      isIdentified: true,
      distinctIds: ['user-1', 'anonymous-1'],
      version: 3,
      properties: { plan: 'pro', amount: 1.5, nested: { list: [1, 'two', null, true] } },
      propertyStamps: {},
      unsetTimes: {},
    };
    const events = Array.from({ length: 40 }, (_, i) => ({
      uuid: `0190a4a0-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`,
      projectId,
      event: i % 2 ? 'purchase' : '$pageview',
      distinctId: `user-${i % 3}`,
      // Larger properties are stored deflated, as a binary attribute.
      properties: { amount: i, text: 'x'.repeat(i * 60) },
      timestamp: `2026-11-20T00:00:${String(i).padStart(2, '0')}.000Z`,
      // An empty chain is stored as an undefined attribute, which marshalling drops.
      elementsChain: i % 2 ? '' : 'a:href="/"',
      createdAt: '2026-11-20T00:01:00.000Z',
    }));
    return {
      main: [
        { ...toPersonItem(projectId, person) },
        personListingItem(projectId, person),
        // An item in the table's index, as a due cohort is.
        {
          PK: `INDEXED#${projectId}`,
          SK: 'ITEM',
          GSI1PK: `INDEXED#${projectId}`,
          GSI1SK: '2026-11-20',
          map: { n: 2.5, list: ['a', 2, [true]], yes: false, none: null },
        },
      ],
      events: itemsOfBatch([{ messageId: 'message', projectId, events }], 'owner').map((put) => put.item),
    };
  }

  /** Every item of `table` (or of its index) naming the project, with the project id made neutral. */
  async function stored(tableName: string, projectId: number, indexName?: string): Promise<string[]> {
    const { Items = [] } = await client.send(new ScanCommand({ TableName: tableName, IndexName: indexName }));
    return Items.map((item) => JSON.stringify(item))
      .filter((text) => text.includes(String(projectId)))
      .map((text) => text.replaceAll(String(projectId), 'PROJECT'))
      .sort();
  }

  it('stores the same items and index entries as BatchWriteItem through a DynamoDB client', async () => {
    // Prepare: the same items for two projects.
    const [main, events] = [singleTable.name, eventsTable.name];
    const throughClient = projectItems(9101);
    const direct = projectItems(9202);
    const documents = DynamoDBDocumentClient.from(client);
    for (const [table, items] of [
      [main, throughClient.main],
      [events, throughClient.events],
    ] as const)
      for (let i = 0; i < items.length; i += 25)
        await documents.send(
          new BatchWriteCommand({
            RequestItems: { [table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
          }),
        );

    // Act
    await putDirectly(store, main, direct.main);
    await putDirectly(store, events, direct.events);

    // Assess: the same items, in the table and in every index, binary attributes among them.
    for (const definition of tables)
      for (const index of [undefined, ...definition.globalSecondaryIndexes.map((gsi) => gsi.indexName)]) {
        const expected = await stored(definition.name, 9101, index);
        expect(await stored(definition.name, 9202, index)).toEqual(expected);
      }
    expect((await stored(events, 9202)).filter((text) => text.includes('"B":'))).not.toHaveLength(0);
    expect(await stored(main, 9202, 'GSI1')).toHaveLength(1);
    const query = await client.send(
      new QueryCommand({
        TableName: main,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': { S: String(direct.main[1]!.PK) } },
      }),
    );
    expect(query.Items).toHaveLength(1);
  });

  it('refuses an item without its key attributes, as PutItem does', async () => {
    await expect(putDirectly(store, singleTable.name, [{ PK: 'only a partition key' }])).rejects.toThrow(
      'Missing the key SK',
    );
  });
});
