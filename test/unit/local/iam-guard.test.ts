import { AccessDeniedException, checkAccess, wrapHandler } from '../../../bin/local/iam-guard';
import { environmentValue, envNames } from '../../../functions/shared/config';

/** The local server's IAM guard: each container may send only what its function's role allows. */
describe('local IAM guard', () => {
  const singleTable = environmentValue(envNames.singleTable)!;
  const eventsTable = environmentValue(envNames.eventsTable)!;
  const as = (functionName: string) => wrapHandler(async () => undefined, functionName);

  it('lets capture read a project token and a personal API key', () => {
    as('flock-capture');
    expect(() =>
      checkAccess('GetItemCommand', { TableName: singleTable, Key: { PK: 'TOKEN#phc_1', SK: 'TOKEN' } }),
    ).not.toThrow();
    expect(() =>
      checkAccess('GetItemCommand', { TableName: singleTable, Key: { PK: 'PAK#abc', SK: 'PAK' } }),
    ).not.toThrow();
  });

  it('refuses capture a key outside its prefixes, a write, and the events table', () => {
    as('flock-capture');
    expect(() =>
      checkAccess('GetItemCommand', { TableName: singleTable, Key: { PK: 'DID#1#u', SK: 'DID' } }),
    ).toThrow(AccessDeniedException);
    expect(() =>
      checkAccess('PutItemCommand', { TableName: singleTable, Item: { PK: 'TOKEN#x', SK: 'TOKEN' } }),
    ).toThrow(/not authorized to perform: dynamodb:PutItem/);
    expect(() =>
      checkAccess('GetItemCommand', { TableName: eventsTable, Key: { PK: 'E#1#u', SK: 'E' } }),
    ).toThrow(/on the eventsTable \(no such action granted\)/);
  });

  it('checks every key of a batch and the partition key of a table query, but not an index query', () => {
    as('flock-consumer');
    const keys = (...pks: string[]) => ({
      RequestItems: { [singleTable]: { Keys: pks.map((PK) => ({ PK, SK: 'x' })) } },
    });
    expect(() => checkAccess('BatchGetItemCommand', keys('DID#1#a', 'PERSON#1#b'))).not.toThrow();
    expect(() => checkAccess('BatchGetItemCommand', keys('DID#1#a', 'PAK#k'))).toThrow(/partition key PAK#/);
    const query = (pk: string, IndexName?: string) => ({
      TableName: singleTable,
      IndexName,
      KeyConditionExpression: IndexName ? 'GSI1PK = :pk' : 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': 'x' },
    });
    expect(() => checkAccess('QueryCommand', query('PROJECT#1'))).not.toThrow();
    expect(() => checkAccess('QueryCommand', query('USER#1'))).toThrow(AccessDeniedException);
    expect(() => checkAccess('QueryCommand', query('EVDEFID#1#x', 'GSI1'))).not.toThrow();
    expect(() =>
      checkAccess('DeleteItemCommand', { TableName: singleTable, Key: { PK: 'PROJECT#1', SK: 'x' } }),
    ).toThrow(/DeleteItem/);
  });
});
