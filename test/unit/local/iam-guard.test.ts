import { AccessDeniedException, checkAccess, wrapHandler } from '../../../bin/local/iam-guard';
import { envNames } from '../../../functions/shared/config';
import { lowLevelClient } from '../../../functions/shared/db/client';
import { environmentValue } from '../../../bin/environment';

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

  it('grants each action only its own prefixes: flags may update overrides, not projects, tokens or persons', () => {
    as('flock-flags');
    const update = (PK: string) => () =>
      checkAccess('UpdateItemCommand', { TableName: singleTable, Key: { PK, SK: 'x' } });
    expect(update('FLAGHASH#1#u')).not.toThrow();
    expect(() =>
      checkAccess('GetItemCommand', { TableName: singleTable, Key: { PK: 'TOKEN#phc_1', SK: 'TOKEN' } }),
    ).not.toThrow();
    for (const pk of ['PROJECT#1', 'TOKEN#phc_1', 'PERSON#1#u'])
      expect(update(pk)).toThrow(
        /UpdateItem on the singleTable \(partition key \w+#… not granted for this action\)/,
      );
  });

  it('keeps plugin configs from capture and flags, and lets the consumer read them', () => {
    const config = { TableName: singleTable, Key: { PK: 'PLUGINCONFIG#1', SK: 'CONFIG#000000000001' } };
    for (const name of ['flock-capture', 'flock-flags']) {
      as(name);
      expect(() => checkAccess('GetItemCommand', config)).toThrow(/partition key PLUGINCONFIG#/);
    }
    as('flock-consumer');
    expect(() =>
      checkAccess('QueryCommand', {
        TableName: singleTable,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': 'PLUGINCONFIG#1', ':prefix': 'CONFIG#' },
      }),
    ).not.toThrow();
  });

  it('lets a function granted Query on indexes only query no partition of the table', () => {
    as('flock-exports');
    const query = (IndexName?: string) => ({
      TableName: singleTable,
      IndexName,
      KeyConditionExpression: IndexName ? 'GSI1PK = :pk' : 'PK = :pk',
      ExpressionAttributeValues: { ':pk': 'PLUGINJOBS#PENDING' },
    });
    expect(() => checkAccess('QueryCommand', query('GSI1'))).not.toThrow();
    expect(() => checkAccess('QueryCommand', query())).toThrow(AccessDeniedException);
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

  it('checks the low-level client too, whose keys are attribute values', () => {
    as('flock-consumer');
    const writes = (table: string, ...pks: string[]) => ({
      RequestItems: {
        [table]: pks.map((pk) => ({ PutRequest: { Item: { PK: { S: pk }, SK: { S: 'E' } } } })),
      },
    });
    const reads = (table: string, ...pks: string[]) => ({
      RequestItems: { [table]: { Keys: pks.map((pk) => ({ PK: { S: pk }, SK: { S: 'E' } })) } },
    });
    expect(() => checkAccess('BatchWriteItemCommand', writes(eventsTable, 'E#1#u', 'I#1#x'))).not.toThrow();
    expect(() => checkAccess('BatchGetItemCommand', reads(eventsTable, 'E#1#u'))).not.toThrow();
    expect(() => checkAccess('BatchWriteItemCommand', writes(singleTable, 'PROPVAL#1#a', 'PAK#k'))).toThrow(
      /partition key PAK#/,
    );
    expect(lowLevelClient.middlewareStack.identify()).toContain('flockLocalIamGuard - initialize');
  });
});
