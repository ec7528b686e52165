import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { batchPutAll } from '../../../../functions/shared/db/batch-write';

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
    expect([...failed].sort()).toEqual(['m1', 'm2']);
  });
});
