import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  getCachedQuery,
  putCachedQuery,
  queryCacheBounds,
} from '../../../../functions/shared/db/query-cache';

const dynamodb = mockClient(DynamoDBDocumentClient);
beforeEach(() => dynamodb.reset());

const lastRefresh = new Date('2026-01-01T00:00:00.000Z');

describe('the query cache items', () => {
  it('puts a result under its own partition with a TTL, and does not cache one past the bound', async () => {
    dynamodb.on(PutCommand).resolves({});
    expect(
      await putCachedQuery('T', 'cache_1_ab', { result: { results: [[1]] }, hogql: 'x', lastRefresh }),
    ).toBe(true);
    const item = dynamodb.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(item).toMatchObject({
      PK: 'QCACHE#cache_1_ab',
      SK: 'QCACHE',
      last_refresh: '2026-01-01T00:00:00.000Z',
      expires: lastRefresh.getTime() / 1000 + queryCacheBounds.ttlSeconds,
    });
    const large = { results: [['x'.repeat(queryCacheBounds.maxBytes)]] };
    expect(await putCachedQuery('T', 'cache_1_cd', { result: large, hogql: null, lastRefresh })).toBe(false);
    expect(dynamodb.commandCalls(PutCommand)).toHaveLength(1);
  });

  it('reads an item back, and not once it has expired (the TTL removes items only eventually)', async () => {
    dynamodb.on(GetCommand).resolves({
      Item: {
        body: JSON.stringify({ result: { results: [[1]] }, hogql: null }),
        last_refresh: lastRefresh.toISOString(),
        expires: lastRefresh.getTime() / 1000 + 60,
      },
    });
    expect(await getCachedQuery('T', 'k', new Date(lastRefresh.getTime() + 59_000))).toEqual({
      result: { results: [[1]] },
      hogql: null,
      lastRefresh,
    });
    expect(await getCachedQuery('T', 'k', new Date(lastRefresh.getTime() + 60_000))).toBeUndefined();
  });
});
