import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { GroupTypeRegistry, groupTypesOf } from '../../../functions/consumer/group-types';
import type { MessageEvents } from '../../../functions/consumer/types';
import type { StoredEvent } from '../../../functions/shared/domain/event';

const dynamodb = mockClient(DynamoDBDocumentClient);

const event = (name: string, properties: Record<string, unknown>): StoredEvent => ({
  uuid: 'u',
  projectId: 7,
  event: name,
  distinctId: 'd',
  properties,
  timestamp: '2026-11-21T10:00:00.000Z',
  elementsChain: '',
  createdAt: '2026-11-21T10:00:00.000Z',
});
const message = (...events: StoredEvent[]): MessageEvents => ({ messageId: 'm', projectId: 7, events });
const stored = (entries: [number, string][]) => ({
  Items: entries.map(([index, name]) => ({ group_type_index: index, group_type: name })),
});
const puts = () => dynamodb.commandCalls(PutCommand).map((call) => call.args[0].input.Item);

describe('groupTypesOf', () => {
  it('reads the types of $groups and of $groupidentify', () => {
    expect(groupTypesOf(event('$pageview', { $groups: { company: 'acme', team: 't' } }))).toEqual([
      'company',
      'team',
    ]);
    expect(groupTypesOf(event('$groupidentify', { $group_type: 'project', $group_key: 'p' }))).toEqual([
      'project',
    ]);
    expect(groupTypesOf(event('$pageview', { $groups: 'nope' }))).toEqual([]);
  });
});

describe('GroupTypeRegistry', () => {
  beforeEach(() => dynamodb.reset());

  it('gives a new type the next free index', async () => {
    dynamodb.on(QueryCommand).resolves(stored([[0, 'company']]));
    dynamodb.on(PutCommand).resolves({});
    await new GroupTypeRegistry().register('main', [
      message(event('$pageview', { $groups: { company: 'acme', team: 't' } })),
    ]);
    expect(puts()).toEqual([expect.objectContaining({ group_type: 'team', group_type_index: 1 })]);
    expect(dynamodb.commandCalls(PutCommand)[0]!.args[0].input.ConditionExpression).toBe(
      'attribute_not_exists(PK)',
    );
  });

  it('takes the next index when another consumer claimed the free one first', async () => {
    dynamodb
      .on(QueryCommand)
      .resolvesOnce(stored([]))
      .resolves(stored([[0, 'company']]));
    dynamodb
      .on(PutCommand)
      .rejectsOnce(Object.assign(new Error('taken'), { name: 'ConditionalCheckFailedException' }))
      .resolves({});
    await new GroupTypeRegistry().register('main', [message(event('$pageview', { $groups: { team: 't' } }))]);
    expect(puts().map((item) => item?.group_type_index as number)).toEqual([0, 1]);
  });

  it('costs nothing for types this container already knows', async () => {
    dynamodb.on(QueryCommand).resolves(stored([[0, 'company']]));
    const registry = new GroupTypeRegistry();
    const batch = [message(event('$pageview', { $groups: { company: 'acme' } }))];
    await registry.register('main', batch);
    dynamodb.resetHistory();
    await registry.register('main', batch);
    expect(dynamodb.calls()).toHaveLength(0);
  });

  it('stops at five group types', async () => {
    dynamodb.on(QueryCommand).resolves(
      stored([
        [0, 'a'],
        [1, 'b'],
        [2, 'c'],
        [3, 'd'],
        [4, 'e'],
      ]),
    );
    await new GroupTypeRegistry().register('main', [message(event('$pageview', { $groups: { f: 'x' } }))]);
    expect(puts()).toEqual([]);
  });
});
