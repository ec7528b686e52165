import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { FlatBatchWriteCommand, marshallFlatItem } from '../../../../functions/shared/db/flat-batch-write';

/** What a document client sends for a command: the request body its handler is given (then it fails). */
async function sentBody(command: BatchWriteCommand): Promise<string> {
  let body = '';
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
      requestHandler: {
        handle: (request: { body?: unknown }) => {
          body = String(request.body);
          return Promise.reject(new Error('captured'));
        },
      },
    }),
    { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } },
  );
  await expect(client.send(command)).rejects.toThrow('captured');
  return body;
}

const flatItem = {
  PK: 'E#1#uuid',
  SK: 'E',
  project: 1,
  negative: -42,
  fraction: 3.25,
  largest: Number.MAX_SAFE_INTEGER,
  pd: Buffer.from([1, 2, 3]),
  bytes: new Uint8Array([4, 5]),
  empty: '',
  flag: false,
  elements_chain: undefined,
};

describe('FlatBatchWriteCommand', () => {
  const cases: [string, BatchWriteCommandInput][] = [
    [
      'flat puts',
      {
        RequestItems: {
          t: [{ PutRequest: { Item: flatItem } }, { PutRequest: { Item: { PK: 'a', SK: 'b' } } }],
        },
      },
    ],
    ['deletes', { RequestItems: { t: [{ DeleteRequest: { Key: { PK: 'a', SK: 'b' } } }] } }],
    [
      'two tables',
      {
        RequestItems: {
          t: [{ PutRequest: { Item: flatItem } }],
          u: [{ DeleteRequest: { Key: { PK: 'x', SK: 'y' } } }],
        },
      },
    ],
    [
      'an item with a map, a list and null',
      { RequestItems: { t: [{ PutRequest: { Item: { ...flatItem, m: { a: [1, null] }, n: null } } }] } },
    ],
    [
      'an unsafe number beside flat items',
      {
        RequestItems: {
          t: [
            { PutRequest: { Item: flatItem } },
            { PutRequest: { Item: { PK: 'a', SK: 'b', n: 0.5, s: new Set(['x']) } } },
          ],
        },
      },
    ],
  ];

  it.each(cases)('sends what the document client sends: %s', async (_, input) => {
    expect(await sentBody(new FlatBatchWriteCommand(input))).toBe(
      await sentBody(new BatchWriteCommand(input)),
    );
  });

  it('refuses what the document client refuses, with its error', async () => {
    const input = { RequestItems: { t: [{ PutRequest: { Item: { PK: 'a', SK: 'b', n: Number.NaN } } }] } };
    await expect(sentBody(new FlatBatchWriteCommand(input))).rejects.toThrow(
      'Special numeric value NaN is not allowed',
    );
  });

  it("is a BatchWriteCommand with the caller's input, for callers and mocks", () => {
    const input = { RequestItems: { t: [{ PutRequest: { Item: flatItem } }] } };
    const command = new FlatBatchWriteCommand(input);
    expect(command).toBeInstanceOf(BatchWriteCommand);
    expect(command.input).toBe(input);
  });
});

describe('marshallFlatItem', () => {
  it('marshals strings, numbers, booleans and binary, leaving undefined out', () => {
    expect(marshallFlatItem(flatItem)).toEqual({
      PK: { S: 'E#1#uuid' },
      SK: { S: 'E' },
      project: { N: '1' },
      negative: { N: '-42' },
      fraction: { N: '3.25' },
      largest: { N: String(Number.MAX_SAFE_INTEGER) },
      pd: { B: Buffer.from([1, 2, 3]) },
      bytes: { B: new Uint8Array([4, 5]) },
      empty: { S: '' },
      flag: { BOOL: false },
    });
  });

  it.each([
    ['a map', { a: {} }],
    ['a list', { a: [] }],
    ['null', { a: null }],
    ['NaN', { a: Number.NaN }],
    ['an infinity', { a: Number.POSITIVE_INFINITY }],
    ['a number past the safe integers', { a: Number.MAX_SAFE_INTEGER + 2 }],
    ['a set', { a: new Set(['x']) }],
    ['a function', { a: () => 1 }],
  ])('leaves an item holding %s to the document client', (_, item) => {
    expect(marshallFlatItem(item)).toBeUndefined();
  });

  it('reads own keys of plain objects only, and leaves a `__proto__` key to the document client', () => {
    const inheriting = Object.create({ inherited: 'x' }) as Record<string, unknown>;
    inheriting.PK = 'a';
    expect(marshallFlatItem(inheriting)).toBeUndefined();
    expect(
      marshallFlatItem(JSON.parse('{"__proto__":"x","PK":"a"}') as Record<string, unknown>),
    ).toBeUndefined();
  });
});
