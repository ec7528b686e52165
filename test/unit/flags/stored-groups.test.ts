import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { FeatureFlagRecord } from '../../../functions/shared/db/feature-flags';
import { keys } from '../../../functions/shared/db/keys';
import type { FlagsRequest } from '../../../functions/flags/flags-request';
import { groupPropertiesWithStored, storedGroupsWanted } from '../../../functions/flags/stored-groups';

const ddb = mockClient(DynamoDBDocumentClient);
const tableName = 'flock-unit';
const projectId = 7;
const mapping = { 0: 'company', 1: 'team' };

/** A flag whose one condition tests the property `plan` (of the group it aggregates by, if any). */
const flag = (key: string, aggregation?: number, properties: unknown[] = [{ key: 'plan', value: 'pro' }]) =>
  ({
    key,
    filters: {
      aggregation_group_type_index: aggregation,
      groups: [{ properties, rollout_percentage: 100 }],
    },
  }) as unknown as FeatureFlagRecord;

const request = (groups: Record<string, unknown>, groupProperties = {}): FlagsRequest => ({
  distinctId: 'u1',
  anonDistinctId: undefined,
  deviceId: undefined,
  personProperties: {},
  groups,
  groupProperties,
  disableFlags: false,
  flagKeys: undefined,
});

/** How the stored properties of a request's groups reach group flags: one batched read, or none. */
describe('stored group properties for flags', () => {
  beforeEach(() => {
    ddb.reset();
  });

  it('reads nothing when the request names no group, or no group a flag aggregates by', async () => {
    const flags = [flag('person'), flag('by-company', 0)];
    for (const groups of [{}, { team: 't1' }]) {
      const wanted = storedGroupsWanted(flags, mapping, request(groups));
      expect(wanted).toEqual([]);
      const sent = { team: { size: 3 } };
      expect(await groupPropertiesWithStored(tableName, projectId, wanted, sent)).toBe(sent);
    }
    expect(storedGroupsWanted([flag('person')], mapping, request({ company: 'acme' }))).toEqual([]);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('reads nothing for a group rollout without property conditions, or when the request sends every key tested', () => {
    const rollout = flag('company-rollout', 0, []);
    expect(storedGroupsWanted([rollout], mapping, request({ company: 'acme' }))).toEqual([]);
    const cohortOnly = flag('company-cohort', 0, [{ key: 'id', type: 'cohort', value: 3 }]);
    expect(storedGroupsWanted([cohortOnly], mapping, request({ company: 'acme' }))).toEqual([]);
    const byPlan = flag('by-plan', 0);
    expect(
      storedGroupsWanted([byPlan], mapping, request({ company: 'acme' }, { company: { plan: 'free' } })),
    ).toEqual([]);
    expect(
      storedGroupsWanted(
        [byPlan, flag('by-size', 0, [{ key: 'size', value: 10, operator: 'gt' }])],
        mapping,
        request({ company: 'acme' }, { company: { plan: 'free' } }),
      ),
    ).toEqual([{ groupType: 'company', groupKey: 'acme' }]);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('reads the flags’ groups in one BatchGetItem, the request’s properties winning', async () => {
    ddb.on(BatchGetCommand).resolves({
      Responses: {
        [tableName]: [
          {
            ...keys.group(projectId, 'company', 'acme'),
            group_type: 'company',
            group_key: 'acme',
            created_at: '2026-11-21T00:00:00.000Z',
            props: JSON.stringify({ plan: 'pro', size: 10 }),
            prop_times: '{}',
            version: 1,
          },
        ],
      },
    });
    const flags = [flag('by-company', 0), flag('by-team', 1), flag('also-company', 0)];
    const wanted = storedGroupsWanted(flags, mapping, request({ company: 'acme', team: 7, other: 'x' }));
    expect(wanted).toEqual([
      { groupType: 'company', groupKey: 'acme' },
      { groupType: 'team', groupKey: '7' },
    ]);

    const merged = await groupPropertiesWithStored(tableName, projectId, wanted, {
      company: { plan: 'free' },
      other: { a: 1 },
    });

    expect(merged).toEqual({ company: { plan: 'free', size: 10 }, other: { a: 1 } });
    const gets = ddb.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems);
    expect(gets).toEqual([
      {
        [tableName]: {
          Keys: [keys.group(projectId, 'company', 'acme'), keys.group(projectId, 'team', '7')],
          ConsistentRead: false,
        },
      },
    ]);
  });
});
