import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BatchGetItemCommand, BatchWriteItemCommand } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { lowLevelClient } from '../../../../functions/shared/db/client';
import { batchGetItems, batchPutAll, setExpression } from '../../../../functions/shared/db/operations';

const dynamodb = mockClient(DynamoDBDocumentClient);
const put = (pk: string, tag = 'm1') => ({ item: { PK: pk, SK: 'E', n: pk }, tag });

describe('batchPutAll', () => {
  beforeEach(() => dynamodb.reset());

  it('writes 25 items per BatchWriteItem call', async () => {
    dynamodb.on(BatchWriteCommand).resolves({});
    const failed = await batchPutAll(
      't',
      Array.from({ length: 60 }, (_, i) => put(`k${i}`)),
    );
    expect(failed.size).toBe(0);
    const sizes = dynamodb
      .commandCalls(BatchWriteCommand)
      .map((call) => call.args[0].input.RequestItems!.t!.length);
    expect(sizes.sort()).toEqual([10, 25, 25]);
  });

  it('collapses items that share a key, the last one winning', async () => {
    dynamodb.on(BatchWriteCommand).resolves({});
    await batchPutAll('t', [
      { item: { PK: 'a', SK: 'E', v: 1 }, tag: 'm1' },
      { item: { PK: 'a', SK: 'E', v: 2 }, tag: 'm2' },
    ]);
    const requests = dynamodb.commandCalls(BatchWriteCommand)[0]!.args[0].input.RequestItems!.t!;
    expect(requests).toEqual([{ PutRequest: { Item: { PK: 'a', SK: 'E', v: 2 } } }]);
  });

  it('retries unprocessed items until they are stored', async () => {
    dynamodb
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { t: [{ PutRequest: { Item: { PK: 'k1', SK: 'E', n: 'k1' } } }] } })
      .resolves({});
    const failed = await batchPutAll('t', [put('k0'), put('k1')]);
    expect(failed.size).toBe(0);
    expect(dynamodb.commandCalls(BatchWriteCommand)[1]!.args[0].input.RequestItems!.t).toEqual([
      { PutRequest: { Item: { PK: 'k1', SK: 'E', n: 'k1' } } },
    ]);
  });

  it('reports the tags of items a call could not store', async () => {
    dynamodb
      .on(BatchWriteCommand)
      .rejects(Object.assign(new Error('gone'), { name: 'ResourceNotFoundException' }));
    const failed = await batchPutAll('t', [put('k0', 'm1'), put('k1', 'm2')]);
    expect([...failed.keys()].sort()).toEqual(['m1', 'm2']);
    expect(failed.get('m1')?.name).toBe('ResourceNotFoundException');
  });

  it('isolates the item a call was refused for: the other items of the call are stored', async () => {
    const tooLarge = Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
      name: 'ValidationException',
    });
    dynamodb
      .on(BatchWriteCommand)
      .callsFake((input: { RequestItems: { t: { PutRequest: { Item: { PK: string } } }[] } }) => {
        if (input.RequestItems.t.some((request) => request.PutRequest.Item.PK === 'big')) throw tooLarge;
        return {};
      });
    const failed = await batchPutAll('t', [put('k0', 'm1'), put('big', 'm2'), put('k1', 'm3')]);
    expect([...failed]).toEqual([['m2', tooLarge]]);
    const stored = dynamodb
      .commandCalls(BatchWriteCommand)
      .filter((call) => call.args[0].input.RequestItems!.t!.length === 1)
      .map((call) => call.args[0].input.RequestItems!.t![0]!.PutRequest!.Item!.PK as string);
    expect(stored.sort()).toEqual(['big', 'k0', 'k1']);
  });

  it('names items still unprocessed after every attempt', async () => {
    dynamodb
      .on(BatchWriteCommand)
      .resolves({ UnprocessedItems: { t: [{ PutRequest: { Item: { PK: 'k0', SK: 'E', n: 'k0' } } }] } });
    const failed = await batchPutAll('t', [put('k0', 'm1')]);
    expect(failed.get('m1')?.name).toBe('UnprocessedItems');
  }, 20_000);
});

describe('batchGetItems', () => {
  beforeEach(() => dynamodb.reset());

  it('retries unprocessed keys and gives up after six calls in a row without progress, not looping forever', async () => {
    const keysOf = (n: number) => Array.from({ length: n }, (_, i) => ({ PK: `k${i}`, SK: 'U' }));
    dynamodb
      .on(BatchGetCommand)
      .resolves({ Responses: { t: [] }, UnprocessedKeys: { t: { Keys: keysOf(1) } } });
    await expect(batchGetItems('t', keysOf(3))).rejects.toThrow('BatchGetItem left 1 keys unprocessed');
    // The first call settles two keys; the six after it settle nothing.
    expect(dynamodb.commandCalls(BatchGetCommand)).toHaveLength(7);
  });

  it('keeps calling while each call makes progress, as a response capped in bytes does (16 MB)', async () => {
    // Prepare: every call answers one item and leaves the rest unprocessed (large items).
    dynamodb.on(BatchGetCommand).callsFake((input: { RequestItems: { t: { Keys: unknown[] } } }) => {
      const [first, ...rest] = input.RequestItems.t.Keys;
      return { Responses: { t: [first] }, UnprocessedKeys: rest.length > 0 ? { t: { Keys: rest } } : {} };
    });

    // Act
    const found = await batchGetItems(
      't',
      Array.from({ length: 20 }, (_, i) => ({ PK: `k${i}`, SK: 'U' })),
    );

    // Assess
    expect(found).toHaveLength(20);
    expect(dynamodb.commandCalls(BatchGetCommand)).toHaveLength(20);
  });

  it('sends 100 keys a call and returns what every call found', async () => {
    dynamodb.on(BatchGetCommand).callsFake((input: { RequestItems: { t: { Keys: unknown[] } } }) => ({
      Responses: { t: input.RequestItems.t.Keys },
    }));
    const found = await batchGetItems(
      't',
      Array.from({ length: 150 }, (_, i) => ({ PK: `k${i}`, SK: 'U' })),
    );
    expect(found).toHaveLength(150);
    expect(
      dynamodb
        .commandCalls(BatchGetCommand)
        .map((call) => call.args[0].input.RequestItems!.t!.Keys!.length)
        .sort(),
    ).toEqual([100, 50].sort());
  });

  it('keeps at most 8 calls in flight however many keys a read asks for', async () => {
    // Prepare: each call answers after a tick, counting how many are outstanding.
    let inFlight = 0;
    let most = 0;
    dynamodb.on(BatchGetCommand).callsFake(async (input: { RequestItems: { t: { Keys: unknown[] } } }) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      return { Responses: { t: input.RequestItems.t.Keys } };
    });

    // Act: 5,000 keys, 50 calls.
    const found = await batchGetItems(
      't',
      Array.from({ length: 5_000 }, (_, i) => ({ PK: `k${i}`, SK: 'U' })),
    );

    // Assess
    expect(found).toHaveLength(5_000);
    expect(dynamodb.commandCalls(BatchGetCommand)).toHaveLength(50);
    expect(most).toBe(8);
  });
});

describe('setExpression', () => {
  it('assigns every attribute through placeholders, keeping the caller names and values', () => {
    expect(
      setExpression(
        [
          { attribute: 'a', value: 1 },
          { attribute: 'b#c', value: 'x', ifNotExists: true },
        ],
        { '#k': 'k' },
        { ':k': true },
      ),
    ).toEqual({
      UpdateExpression: 'SET #f0 = :v0, #f1 = if_not_exists(#f1, :v1)',
      ExpressionAttributeNames: { '#k': 'k', '#f0': 'a', '#f1': 'b#c' },
      ExpressionAttributeValues: { ':k': true, ':v0': 1, ':v1': 'x' },
    });
  });
});

describe('the low-level client path (the batch calls paid per event)', () => {
  const lowLevel = mockClient(lowLevelClient);
  const wire = (pk: string) => ({ PK: { S: pk }, SK: { S: 'E' }, n: { S: pk } });
  beforeEach(() => {
    lowLevel.reset();
    dynamodb.reset();
  });
  afterAll(() => lowLevel.restore());

  it('writes 25 marshalled items a call through the low-level client, not the document client', async () => {
    lowLevel.on(BatchWriteItemCommand).resolves({});
    const failed = await batchPutAll(
      't',
      Array.from({ length: 30 }, (_, i) => ({
        item: { PK: `k${i}`, SK: 'E', v: i, b: new Uint8Array([i]) },
        tag: 'm1',
      })),
      4,
      'low-level',
    );
    expect(failed.size).toBe(0);
    expect(dynamodb.calls()).toHaveLength(0);
    const calls = lowLevel.commandCalls(BatchWriteItemCommand);
    expect(calls.map((call) => call.args[0].input.RequestItems!.t!.length).sort()).toEqual([25, 5]);
    expect(calls[0]!.args[0].input.RequestItems!.t![0]).toEqual({
      PutRequest: { Item: { PK: { S: 'k0' }, SK: { S: 'E' }, v: { N: '0' }, b: { B: new Uint8Array([0]) } } },
    });
  });

  it('retries the items left unprocessed, and names those never stored by their tags', async () => {
    lowLevel
      .on(BatchWriteItemCommand)
      .resolvesOnce({ UnprocessedItems: { t: [{ PutRequest: { Item: wire('k1') } }] } })
      .resolves({});
    expect((await batchPutAll('t', [put('k0'), put('k1')], 4, 'low-level')).size).toBe(0);
    expect(lowLevel.commandCalls(BatchWriteItemCommand)[1]!.args[0].input.RequestItems!.t).toEqual([
      { PutRequest: { Item: wire('k1') } },
    ]);

    lowLevel.reset();
    lowLevel
      .on(BatchWriteItemCommand)
      .resolves({ UnprocessedItems: { t: [{ PutRequest: { Item: wire('k0') } }] } });
    const failed = await batchPutAll('t', [put('k0', 'm1'), put('k1', 'm2')], 4, 'low-level');
    expect([...failed.keys()]).toEqual(['m1']);
    expect(failed.get('m1')?.name).toBe('UnprocessedItems');
  }, 20_000);

  it('splits a refused call into single puts: only the offending item fails', async () => {
    const tooLarge = Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
      name: 'ValidationException',
    });
    lowLevel
      .on(BatchWriteItemCommand)
      .callsFake((input: { RequestItems: { t: { PutRequest: { Item: { PK: { S: string } } } }[] } }) => {
        if (input.RequestItems.t.some((request) => request.PutRequest.Item.PK.S === 'big')) throw tooLarge;
        return {};
      });
    const failed = await batchPutAll(
      't',
      [put('k0', 'm1'), put('big', 'm2'), put('k1', 'm3')],
      4,
      'low-level',
    );
    expect([...failed]).toEqual([['m2', tooLarge]]);
    expect(lowLevel.commandCalls(BatchWriteItemCommand)).toHaveLength(4);
  });

  it('reads marshalled keys and answers items unmarshalled, retrying unprocessed keys', async () => {
    lowLevel
      .on(BatchGetItemCommand)
      .resolvesOnce({
        Responses: {
          t: [{ PK: { S: 'k0' }, SK: { S: 'U' }, project: { N: '7' }, pd: { B: new Uint8Array([1]) } }],
        },
        UnprocessedKeys: { t: { Keys: [{ PK: { S: 'k1' }, SK: { S: 'U' } }] } },
      })
      .resolves({ Responses: { t: [{ PK: { S: 'k1' }, SK: { S: 'U' }, project: { N: '8' } }] } });

    const found = await batchGetItems(
      't',
      [
        { PK: 'k0', SK: 'U' },
        { PK: 'k1', SK: 'U' },
      ],
      true,
      { expression: '#p', names: { '#p': 'project' } },
      'low-level',
    );

    expect(found).toEqual([
      { PK: 'k0', SK: 'U', project: 7, pd: new Uint8Array([1]) },
      { PK: 'k1', SK: 'U', project: 8 },
    ]);
    expect(dynamodb.calls()).toHaveLength(0);
    expect(lowLevel.commandCalls(BatchGetItemCommand).map((call) => call.args[0].input)).toEqual([
      {
        RequestItems: {
          t: {
            Keys: [
              { PK: { S: 'k0' }, SK: { S: 'U' } },
              { PK: { S: 'k1' }, SK: { S: 'U' } },
            ],
            ConsistentRead: true,
            ProjectionExpression: '#p',
            ExpressionAttributeNames: { '#p': 'project' },
          },
        },
      },
      {
        RequestItems: {
          t: {
            Keys: [{ PK: { S: 'k1' }, SK: { S: 'U' } }],
            ConsistentRead: true,
            ProjectionExpression: '#p',
            ExpressionAttributeNames: { '#p': 'project' },
          },
        },
      },
    ]);
  });
});
