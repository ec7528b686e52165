import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BatchGetCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { CohortRecord } from '../../../functions/shared/db/cohorts';
import type { FeatureFlagRecord } from '../../../functions/shared/db/feature-flags';
import { evaluateRequest } from '../../../functions/flags/evaluation';
import { projectFlagsOf } from '../../../functions/flags/project-flags';

const dynamodb = mockClient(DynamoDBDocumentClient);
const projectId = 7;
const created = '2026-11-27T00:00:00.000Z';

const cohort = {
  id: 3,
  team_id: projectId,
  name: 'pros',
  description: '',
  groups: [],
  filters: {
    properties: {
      type: 'AND',
      values: [{ type: 'person', key: 'plan', value: 'pro', operator: 'exact' }],
    },
  },
  deleted: false,
  is_static: false,
  is_calculating: false,
  count: null,
  last_calculation: null,
  errors_calculating: 0,
  last_error_at: null,
  created_at: created,
  created_by: null,
  version: 1,
  pending_version: 1,
  revision: 1,
} as CohortRecord;

const flag: FeatureFlagRecord = {
  id: 1,
  team_id: projectId,
  key: 'pro-only',
  name: '',
  filters: {
    groups: [{ properties: [{ key: 'id', type: 'cohort', value: 3 }], rollout_percentage: 100 }],
  },
  active: true,
  deleted: false,
  ensure_experience_continuity: false,
  is_remote_configuration: false,
  rollout_percentage: null,
  created_at: created,
  created_by: null,
  updated_at: created,
  version: 1,
};

const project = projectFlagsOf(projectId, [flag], {}, [cohort]);

/** The stored items by key, as the table holds them (property times and distinct ids included). */
const stored: Record<string, Record<string, unknown>> = {
  [`DID#${projectId}#user-1`]: { distinct_id: 'user-1', person: 'old', project: projectId },
  [`PERSON#${projectId}#old`]: {
    uuid: 'old',
    props: '{"plan":"free"}',
    prop_times: '{"stamps":[[1,1]],"of":[0]}',
    distinct_ids: ['user-1'],
    merged_into: 'new',
  },
  [`PERSON#${projectId}#new`]: {
    uuid: 'new',
    props: '{"plan":"pro"}',
    prop_times: '{"stamps":[[1,1]],"of":[0]}',
    distinct_ids: ['user-1', 'user-2'],
  },
};

/** BatchGetItem as DynamoDB answers it: the items found, each with its projected attributes only. */
function batchGet(input: BatchGetCommandInput) {
  const [[table, request]] = Object.entries(input.RequestItems ?? {}) as [
    [string, NonNullable<BatchGetCommandInput['RequestItems']>[string]],
  ];
  const wanted = (request.ProjectionExpression ?? '')
    .split(',')
    .map((name) => request.ExpressionAttributeNames?.[name.trim()] ?? name.trim());
  const items = (request.Keys ?? []).flatMap((key) => {
    const item = stored[String(key.PK)];
    return item ? [Object.fromEntries(Object.entries(item).filter(([name]) => wanted.includes(name)))] : [];
  });
  return { Responses: { [table]: items } };
}

const request = (distinctId: string) => ({
  distinctId,
  anonDistinctId: undefined,
  deviceId: undefined,
  personProperties: {},
  groups: {},
  groupProperties: {},
  disableFlags: false,
  flagKeys: undefined,
});

describe('the stored person read of /decide', () => {
  beforeEach(() => {
    dynamodb.reset();
    dynamodb.on(BatchGetCommand).callsFake(batchGet);
  });

  it('reads the mapping and the person with one projected read each, following a merge', async () => {
    const evaluation = await evaluateRequest('table', project, request('user-1'));

    expect(evaluation.results['pro-only']?.enabled).toBe(true);
    expect(evaluation.errorsWhileComputingFlags).toBe(false);
    const gets = dynamodb
      .commandCalls(BatchGetCommand)
      .map((call) => call.args[0].input.RequestItems!['table']!);
    expect(gets.map((input) => input.Keys?.map((key) => String(key.PK)))).toEqual([
      [`DID#${projectId}#user-1`],
      [`PERSON#${projectId}#old`],
      [`PERSON#${projectId}#new`],
    ]);
    // Only what flags use crosses the wire: never the property times or the distinct id list.
    for (const input of gets) {
      expect(input.ProjectionExpression).toBeDefined();
      expect(Object.values(input.ExpressionAttributeNames ?? {})).not.toContain('prop_times');
      expect(Object.values(input.ExpressionAttributeNames ?? {})).not.toContain('distinct_ids');
      expect(input.ConsistentRead).toBeFalsy();
    }
  });

  it('evaluates without stored properties when the distinct id has no person', async () => {
    const evaluation = await evaluateRequest('table', project, request('nobody'));

    expect(evaluation.results['pro-only']?.enabled).toBe(false);
    expect(evaluation.errorsWhileComputingFlags).toBe(false);
    expect(dynamodb.commandCalls(BatchGetCommand)).toHaveLength(1);
  });
});

describe('the remembered person of a distinct id (repeat calls)', () => {
  const personKeysRead = () =>
    dynamodb
      .commandCalls(BatchGetCommand)
      .flatMap((call) => call.args[0].input.RequestItems!['table']!.Keys!.map((key) => String(key.PK)));
  const put = (items: Record<string, Record<string, unknown> | undefined>) => {
    for (const [key, item] of Object.entries(items)) {
      if (item) stored[key] = item;
      else delete stored[key];
    }
  };
  const person = (uuid: string, plan: string, mergedInto?: string) => ({
    uuid,
    props: JSON.stringify({ plan }),
    distinct_ids: [],
    ...(mergedInto === undefined ? {} : { merged_into: mergedInto }),
  });
  /** A distinct id mapped to a new person of that plan. */
  const known = (distinctId: string, uuid: string, plan: string) =>
    put({
      [`DID#${projectId}#${distinctId}`]: { person: uuid },
      [`PERSON#${projectId}#${uuid}`]: person(uuid, plan),
    });
  const enabledFor = async (distinctId: string, on = project) =>
    (await evaluateRequest('table', on, request(distinctId))).results['pro-only']?.enabled;

  beforeEach(() => {
    dynamodb.reset();
    dynamodb.on(BatchGetCommand).callsFake(batchGet);
  });

  it('reads only the person on a repeat call for the same distinct id', async () => {
    known('repeat', 'p-repeat', 'pro');
    expect(await enabledFor('repeat')).toBe(true);
    dynamodb.resetHistory();

    expect(await enabledFor('repeat')).toBe(true);
    expect(personKeysRead()).toEqual([`PERSON#${projectId}#p-repeat`]);
  });

  it('follows the remembered person to the survivor once it is merged, and remembers the survivor', async () => {
    known('merged', 'p-a', 'free');
    expect(await enabledFor('merged')).toBe(false);
    // A merge: p-a forwards to p-b, then the mapping is re-pointed.
    put({
      [`PERSON#${projectId}#p-b`]: person('p-b', 'pro'),
      [`PERSON#${projectId}#p-a`]: person('p-a', 'free', 'p-b'),
      [`DID#${projectId}#merged`]: { person: 'p-b' },
    });
    dynamodb.resetHistory();

    expect(await enabledFor('merged')).toBe(true);
    expect(personKeysRead()).toEqual([`PERSON#${projectId}#p-a`, `PERSON#${projectId}#p-b`]);
    dynamodb.resetHistory();
    expect(await enabledFor('merged')).toBe(true);
    expect(personKeysRead()).toEqual([`PERSON#${projectId}#p-b`]);
  });

  it('reads the mapping again when the remembered person is gone', async () => {
    known('gone', 'p-old', 'free');
    expect(await enabledFor('gone')).toBe(false);
    put({
      [`PERSON#${projectId}#p-old`]: undefined,
      [`DID#${projectId}#gone`]: { person: 'p-new' },
      [`PERSON#${projectId}#p-new`]: person('p-new', 'pro'),
    });
    dynamodb.resetHistory();

    expect(await enabledFor('gone')).toBe(true);
    expect(personKeysRead()).toEqual([
      `PERSON#${projectId}#p-old`,
      `DID#${projectId}#gone`,
      `PERSON#${projectId}#p-new`,
    ]);
  });

  it('keeps no entry for a distinct id without a person, and none across projects', async () => {
    expect(await enabledFor('later')).toBe(false);
    known('later', 'p-later', 'pro');
    expect(await enabledFor('later')).toBe(true);
    dynamodb.resetHistory();

    const other = projectFlagsOf(projectId + 1, [{ ...flag, team_id: projectId + 1 }], {}, [
      { ...cohort, team_id: projectId + 1 },
    ]);
    expect(await enabledFor('later', other)).toBe(false);
    expect(personKeysRead()).toEqual([`DID#${projectId + 1}#later`]);
  });
});
