import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import {
  claimDistinctId,
  getDistinctIdsOfPerson,
  getPerson,
  getPersonByDistinctId,
  markPersonAbsorbed,
  putPerson,
  readDistinctIds,
  repointDistinctId,
} from '../../../functions/shared/db/persons';
import { writePersonChanges } from '../../../functions/consumer/persons';
import type { Person, PersonChanges } from '../../../functions/shared/domain/persons';

const ddb = mockClient(DynamoDBDocumentClient);
const conditionFailed = (): ConditionalCheckFailedException =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

const person: Person = {
  uuid: 'p-1',
  createdAt: '2024-03-01T12:00:00.000Z',
  isIdentified: false,
  properties: { plan: 'pro', first: 'a' },
  propertyStamps: { plan: { at: 1709294400000, once: false }, first: { at: 1709294399000, once: true } },
  unsetTimes: { gone: 1709294401000 },
  distinctIds: ['anon'],
  version: 3,
};

beforeEach(() => {
  ddb.reset();
});

describe('persons repository', () => {
  it('claims a distinct id only if it has no mapping yet', async () => {
    // Prepare
    ddb.on(PutCommand).resolves({});
    // Act
    const claimed = await claimDistinctId('main', 7, 'anon', 'p-1');
    // Assess
    expect(claimed).toBe(true);
    expect(ddb).toHaveReceivedCommandWith(PutCommand, {
      TableName: 'main',
      Item: { PK: 'DID#7#anon', SK: 'DID', project: 7, distinct_id: 'anon', person: 'p-1' },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
  });

  it('reports a lost claim as false, not as an error', async () => {
    ddb.on(PutCommand).rejects(conditionFailed());
    await expect(claimDistinctId('main', 7, 'anon', 'p-1')).resolves.toBe(false);
  });

  it('passes on errors other than a failed condition', async () => {
    ddb.on(PutCommand).rejects(Object.assign(new Error('boom'), { name: 'InternalServerError' }));
    await expect(claimDistinctId('main', 7, 'anon', 'p-1')).rejects.toThrow('boom');
  });

  it('writes an existing person only at the version it read', async () => {
    ddb.on(PutCommand).resolves({});
    await putPerson('main', 7, { ...person, version: 4 }, 3);
    expect(ddb).toHaveReceivedCommandWith(PutCommand, {
      TableName: 'main',
      Item: {
        PK: 'PERSON#7#p-1',
        SK: 'PERSON',
        uuid: 'p-1',
        project: 7,
        created_at: '2024-03-01T12:00:00.000Z',
        is_identified: false,
        props: '{"plan":"pro","first":"a"}',
        prop_times: '{"stamps":[[1709294400000,1],[1709294399000,0]],"of":[0,1]}',
        unset_times: '{"gone":1709294401000}',
        distinct_ids: ['anon'],
        version: 4,
      },
      ConditionExpression: 'version = :expected',
      ExpressionAttributeValues: { ':expected': 3 },
    });
  });

  it('writes a new person only if none exists', async () => {
    ddb.on(PutCommand).resolves({});
    await putPerson('main', 7, { ...person, version: 1 }, undefined);
    expect(ddb.commandCalls(PutCommand)[0]!.args[0].input).toMatchObject({
      ConditionExpression: 'attribute_not_exists(PK)',
      Item: { PK: 'PERSON#7#p-1', version: 1 },
    });
    expect(ddb.commandCalls(PutCommand)[0]!.args[0].input.ExpressionAttributeValues).toBeUndefined();
  });

  it('writes a merged person as a forwarding item that keeps its properties until absorbed', async () => {
    ddb.on(PutCommand).resolves({});
    await putPerson('main', 7, { ...person, version: 4, mergedInto: 'p-2', absorbed: false }, 3);
    expect(ddb.commandCalls(PutCommand)[0]!.args[0].input.Item).toMatchObject({
      merged_into: 'p-2',
      absorbed: false,
      props: '{"plan":"pro","first":"a"}',
      prop_times: '{"stamps":[[1709294400000,1],[1709294399000,0]],"of":[0,1]}',
    });
  });

  it('stores each distinct property time once, and reads back times only for the properties they line up with', async () => {
    // Prepare
    ddb.on(PutCommand).resolves({});
    const stamped: Person = {
      ...person,
      properties: { a: 1, b: 2, c: 3, '10': 'integer-like keys come first' },
      propertyStamps: {
        a: { at: 5, once: true },
        b: { at: 7, once: false },
        c: { at: 5, once: true },
        '10': { at: 5, once: false },
      },
      unsetTimes: {},
    };
    // Act
    await putPerson('main', 7, stamped, 3);
    const item = ddb.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    ddb.on(BatchGetCommand).resolves({
      Responses: { main: [item, { ...item, uuid: 'p-2', props: '{"a":1}' }] },
    });
    // Assess
    expect(item.prop_times).toBe('{"stamps":[[5,1],[5,0],[7,1]],"of":[0,1,2,1]}');
    await expect(getPerson('main', 7, 'p-1')).resolves.toEqual(stamped);
    await expect(getPerson('main', 7, 'p-2')).resolves.toMatchObject({ propertyStamps: {} });
  });

  it('leaves out property times and tombstones a person does not have', async () => {
    ddb.on(PutCommand).resolves({});
    await putPerson('main', 7, { ...person, propertyStamps: {}, unsetTimes: {} }, 3);
    const item = ddb.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(item).not.toHaveProperty('prop_times');
    expect(item).not.toHaveProperty('unset_times');
  });

  it('reads a person back with its property times and tombstones', async () => {
    ddb.on(PutCommand).resolves({});
    await putPerson('main', 7, person, 2);
    const item = ddb.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    ddb.on(BatchGetCommand).resolves({ Responses: { main: [item] } });
    await expect(getPerson('main', 7, 'p-1')).resolves.toEqual(person);
  });

  it('marks a merged person absorbed and drops its properties, only while it forwards to that survivor', async () => {
    ddb.on(UpdateCommand).resolves({});
    await markPersonAbsorbed('main', 7, 'p-1', 'p-2');
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      TableName: 'main',
      Key: { PK: 'PERSON#7#p-1', SK: 'PERSON' },
      UpdateExpression: 'SET absorbed = :true REMOVE props, prop_times, unset_times',
      ConditionExpression: 'merged_into = :into',
      ExpressionAttributeValues: { ':true': true, ':into': 'p-2' },
    });
  });

  it('moves a distinct id to the survivor only if it still points at the merged person', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    await expect(repointDistinctId('main', 7, 'anon', 'p-1', 'p-2')).resolves.toBe(false);
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      TableName: 'main',
      Key: { PK: 'DID#7#anon', SK: 'DID' },
      UpdateExpression: 'SET person = :to',
      ConditionExpression: 'person = :from',
      ExpressionAttributeValues: { ':from': 'p-1', ':to': 'p-2' },
    });
  });

  it('reads mappings strongly consistent, 100 keys per call, retrying unprocessed keys', async () => {
    const ids = Array.from({ length: 150 }, (_, i) => `d-${i}`);
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { main: [{ distinct_id: 'd-0', person: 'p-0' }] },
        UnprocessedKeys: { main: { Keys: [{ PK: 'DID#7#d-1', SK: 'DID' }] } },
      })
      .resolves({ Responses: { main: [{ distinct_id: 'd-1', person: 'p-1' }] } });
    const mappings = await readDistinctIds('main', 7, ids);
    expect(mappings.get('d-0')).toBe('p-0');
    expect(mappings.get('d-1')).toBe('p-1');
    const calls = ddb.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems!.main!);
    expect(calls.map((request) => request.Keys!.length).sort((a, b) => a - b)).toEqual([1, 50, 100]);
    expect(calls.every((request) => request.ConsistentRead === true)).toBe(true);
    expect(calls[0]!.Keys![0]).toEqual({ PK: 'DID#7#d-0', SK: 'DID' });
  });

  it('finds the live person of a distinct id through a merged one; a person stored without times has none', async () => {
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { main: [{ distinct_id: 'anon', person: 'p-1' }] } })
      .resolvesOnce({
        Responses: {
          main: [
            {
              uuid: 'p-1',
              created_at: 'x',
              is_identified: false,
              distinct_ids: ['anon'],
              version: 2,
              merged_into: 'p-2',
              absorbed: true,
            },
          ],
        },
      })
      .resolvesOnce({
        Responses: {
          main: [
            {
              uuid: 'p-2',
              created_at: 'y',
              is_identified: true,
              props: '{"email":"a@example.com"}',
              distinct_ids: ['user', 'anon'],
              version: 5,
            },
          ],
        },
      });
    await expect(getPersonByDistinctId('main', 7, 'anon')).resolves.toEqual({
      uuid: 'p-2',
      createdAt: 'y',
      isIdentified: true,
      properties: { email: 'a@example.com' },
      propertyStamps: {},
      unsetTimes: {},
      distinctIds: ['user', 'anon'],
      version: 5,
    });
    expect(ddb.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems!.main!.ConsistentRead).toBe(
      false,
    );
  });

  it('lists the distinct ids of a live person, and none for a merged one', async () => {
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: {
          main: [
            { uuid: 'p-2', created_at: 'y', is_identified: true, distinct_ids: ['user', 'anon'], version: 1 },
          ],
        },
      })
      .resolvesOnce({
        Responses: {
          main: [
            {
              uuid: 'p-1',
              created_at: 'x',
              is_identified: false,
              distinct_ids: ['anon'],
              version: 2,
              merged_into: 'p-2',
            },
          ],
        },
      });
    await expect(getDistinctIdsOfPerson('main', 7, 'p-2')).resolves.toEqual(['user', 'anon']);
    await expect(getDistinctIdsOfPerson('main', 7, 'p-1')).resolves.toBeUndefined();
  });
});

const newPerson: Person = {
  uuid: '0190d7c2-0000-4000-8000-00000000000a',
  createdAt: '2024-03-01T12:00:00.000Z',
  isIdentified: false,
  properties: {},
  propertyStamps: {},
  unsetTimes: {},
  distinctIds: ['user-1'],
  version: 1,
};

/** What a batch writes for a user it sees for the first time: a claim and a new person. */
const firstSight: PersonChanges = {
  claims: [{ distinctId: 'user-1', personUuid: newPerson.uuid }],
  merged: [],
  persons: [{ person: newPerson, expectedVersion: undefined }],
  absorbed: [],
  repoints: [],
};

const isClaim = (input: { Item?: Record<string, unknown> }): boolean =>
  String(input.Item?.PK).startsWith('DID#');

describe('writing a group of person changes', () => {
  beforeEach(() => {
    ddb.on(BatchWriteCommand).resolves({ UnprocessedItems: {} });
    ddb.on(BatchGetCommand).resolves({ Responses: { main: [] } });
  });

  it('lists a new person once its distinct id is claimed, before writing the person', async () => {
    ddb.on(PutCommand).resolves({});
    await expect(writePersonChanges('main', 7, firstSight)).resolves.toBe(true);
    const calls = ddb.calls().map((call) => call.args[0].input as Record<string, unknown>);
    const listingAt = ddb.calls().findIndex((call) => call.args[0] instanceof BatchWriteCommand);
    const claimAt = calls.findIndex((input) => isClaim(input));
    const personAt = calls.findIndex((input) =>
      String((input.Item as { PK?: string })?.PK).startsWith('PERSON#'),
    );
    expect(claimAt).toBeLessThan(listingAt);
    expect(listingAt).toBeLessThan(personAt);
    expect(ddb).toHaveReceivedCommandWith(BatchWriteCommand, {
      RequestItems: {
        main: [
          {
            PutRequest: {
              Item: {
                PK: 'PERSONS#7#10',
                SK: `2024-03-01T12:00:00.000Z#${newPerson.uuid}`,
                person: newPerson.uuid,
              },
            },
          },
        ],
      },
    });
  });

  it('lists nothing when another batch claimed the distinct id first (its person is listed already)', async () => {
    ddb.on(PutCommand).callsFake((input: { Item?: Record<string, unknown> }) => {
      if (isClaim(input)) throw conditionFailed();
      return {};
    });
    await expect(writePersonChanges('main', 7, firstSight)).resolves.toBe(false);
    expect(ddb).not.toHaveReceivedCommand(BatchWriteCommand);
  });

  it('claims nothing when a read right before the claims finds another batch’s mapping (no refused write)', async () => {
    ddb.on(PutCommand).resolves({});
    ddb.on(BatchGetCommand).resolves({
      Responses: { main: [{ PK: 'DID#7#user-1', SK: 'DID', distinct_id: 'user-1', person: 'p-other' }] },
    });
    await expect(writePersonChanges('main', 7, firstSight)).resolves.toBe(false);
    expect(ddb).toHaveReceivedCommandWith(BatchGetCommand, {
      RequestItems: { main: { Keys: [{ PK: 'DID#7#user-1', SK: 'DID' }], ConsistentRead: true } },
    });
    expect(ddb).not.toHaveReceivedCommand(PutCommand);
    expect(ddb).not.toHaveReceivedCommand(BatchWriteCommand);
  });
});
