import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import {
  addEventVolume,
  createEventDefinition,
  getEventVolume30Day,
  recordEventSeen,
} from '../../../functions/shared/db/definitions';
import { markProjectIngestedEvent } from '../../../functions/shared/db/projects';
import { eventDefinitionIdFor } from '../../../functions/shared/domain/definitions';

const ddb = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  ddb.reset();
});

describe('event definitions repository', () => {
  it('creates a definition or bumps last_seen_at, only if not already seen today', async () => {
    ddb.on(UpdateCommand).resolves({});
    const now = new Date('2024-03-01T15:30:00.000Z');
    const id = eventDefinitionIdFor(7, 'signup');
    await expect(recordEventSeen('main', 7, 'signup', now)).resolves.toBe(true);
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      TableName: 'main',
      Key: { PK: 'PROJECT#7', SK: 'EVDEF#signup' },
      UpdateExpression:
        'SET #id = if_not_exists(#id, :id), #name = if_not_exists(#name, :name), #project = if_not_exists(#project, :project), ' +
        'created_at = if_not_exists(created_at, :now), last_seen_at = :now, ' +
        'GSI1PK = if_not_exists(GSI1PK, :gsi1pk), GSI1SK = if_not_exists(GSI1SK, :gsi1sk)',
      ConditionExpression:
        'attribute_not_exists(PK) OR attribute_not_exists(last_seen_at) OR last_seen_at < :today',
      ExpressionAttributeNames: { '#id': 'id', '#name': 'name', '#project': 'project' },
      ExpressionAttributeValues: {
        ':id': id,
        ':gsi1pk': `EVDEFID#7#${id}`,
        ':gsi1sk': 'EVDEF',
        ':name': 'signup',
        ':project': 7,
        ':now': '2024-03-01T15:30:00.000Z',
        ':today': '2024-03-01T00:00:00.000Z',
      },
    });
  });

  it('creates a missing definition with one conditional put, indexed by its id', async () => {
    ddb.on(PutCommand).resolves({});
    const now = new Date('2024-03-01T15:30:00.000Z');
    const id = eventDefinitionIdFor(7, 'signup');
    await expect(createEventDefinition('main', 7, 'signup', now)).resolves.toBe(true);
    expect(ddb).toHaveReceivedCommandWith(PutCommand, {
      TableName: 'main',
      Item: {
        PK: 'PROJECT#7',
        SK: 'EVDEF#signup',
        GSI1PK: `EVDEFID#7#${id}`,
        GSI1SK: 'EVDEF',
        id,
        name: 'signup',
        project: 7,
        created_at: now.toISOString(),
        last_seen_at: now.toISOString(),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
    ddb.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    await expect(createEventDefinition('main', 7, 'signup', now)).resolves.toBe(false);
  });

  it('treats a definition already seen today as done', async () => {
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    await expect(recordEventSeen('main', 7, 'signup', new Date())).resolves.toBe(false);
  });

  it('adds a batch’s count to the (name, day) counter in one atomic write', async () => {
    ddb.on(UpdateCommand).resolves({});
    await addEventVolume('main', 7, '$pageview', '2024-03-01', 42);
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      TableName: 'main',
      Key: { PK: 'EVVOL#7#$pageview', SK: '2024-03-01' },
      UpdateExpression: 'ADD #count :count',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':count': 42 },
    });
  });

  it('sums the last 30 days of a name with one query', async () => {
    ddb.on(QueryCommand).resolves({
      Items: [
        { SK: '2024-02-10', count: 5 },
        { SK: '2024-03-10', count: 7 },
      ],
    });
    await expect(
      getEventVolume30Day('main', 7, '$pageview', new Date('2024-03-10T08:00:00.000Z')),
    ).resolves.toBe(12);
    expect(ddb).toHaveReceivedCommandWith(QueryCommand, {
      TableName: 'main',
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': 'EVVOL#7#$pageview', ':from': '2024-02-10', ':to': '2024-03-10' },
    });
  });
});

describe('project ingested_event', () => {
  it('flips the flag with one conditional write that is a no-op once true', async () => {
    ddb.on(UpdateCommand).resolves({});
    await expect(markProjectIngestedEvent('main', 7)).resolves.toBe(true);
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      TableName: 'main',
      Key: { PK: 'PROJECT#7', SK: 'PROJECT' },
      UpdateExpression: 'SET ingested_event = :true',
      ConditionExpression:
        'attribute_exists(PK) AND (attribute_not_exists(ingested_event) OR ingested_event = :false)',
      ExpressionAttributeValues: { ':true': true, ':false': false },
    });
  });

  it('reports a flag that was already true as false', async () => {
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    await expect(markProjectIngestedEvent('main', 7)).resolves.toBe(false);
  });
});
