import { BatchGetCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { BatchGetCommandInput, GetCommandInput } from '@aws-sdk/lib-dynamodb';
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

/** The stored item of `key` with the projected attributes only, as DynamoDB answers a projection. */
function projected(
  key: Record<string, unknown>,
  input: { ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> },
) {
  const wanted = (input.ProjectionExpression ?? '')
    .split(',')
    .map((name) => input.ExpressionAttributeNames?.[name.trim()] ?? name.trim());
  const item = stored[String(key.PK)];
  return item && Object.fromEntries(Object.entries(item).filter(([name]) => wanted.includes(name)));
}

/** BatchGetItem as DynamoDB answers it: the items found. */
function batchGet(input: BatchGetCommandInput) {
  const [[table, request]] = Object.entries(input.RequestItems ?? {}) as [
    [string, NonNullable<BatchGetCommandInput['RequestItems']>[string]],
  ];
  const items = (request.Keys ?? []).flatMap((key) => projected(key, request) ?? []);
  return { Responses: { [table]: items } };
}

/** GetItem as DynamoDB answers it: the item, if found. */
const get = (input: GetCommandInput) => ({ Item: projected(input.Key ?? {}, input) });

/** The reads of the stored person, in order: GetItem inputs. */
const personGets = () => dynamodb.commandCalls(GetCommand).map((call) => call.args[0].input);

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
    dynamodb.on(GetCommand).callsFake(get);
  });

  it('reads the mapping and the person with one projected read each, following a merge', async () => {
    const evaluation = await evaluateRequest('table', project, request('user-1'));

    expect(evaluation.results['pro-only']?.enabled).toBe(true);
    expect(evaluation.errorsWhileComputingFlags).toBe(false);
    const gets = personGets();
    expect(gets.map((input) => String(input.Key?.PK))).toEqual([
      `DID#${projectId}#user-1`,
      `PERSON#${projectId}#old`,
      `PERSON#${projectId}#new`,
    ]);
    // Only what flags use crosses the wire: never the property times or the distinct id list.
    for (const input of gets) {
      expect(input.TableName).toBe('table');
      expect(input.ProjectionExpression).toBeDefined();
      expect(Object.values(input.ExpressionAttributeNames ?? {})).not.toContain('prop_times');
      expect(Object.values(input.ExpressionAttributeNames ?? {})).not.toContain('distinct_ids');
      expect(input.ConsistentRead).toBeFalsy();
    }
    expect(dynamodb.commandCalls(BatchGetCommand)).toHaveLength(0);
  });

  it('evaluates without stored properties when the distinct id has no person', async () => {
    const evaluation = await evaluateRequest('table', project, request('nobody'));

    expect(evaluation.results['pro-only']?.enabled).toBe(false);
    expect(evaluation.errorsWhileComputingFlags).toBe(false);
    expect(personGets()).toHaveLength(1);
  });
});

describe('the remembered person of a distinct id (repeat calls)', () => {
  const personKeysRead = () => personGets().map((input) => String(input.Key?.PK));
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
    dynamodb.on(GetCommand).callsFake(get);
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
