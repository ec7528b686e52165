import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { NewFeatureFlag } from '../../../functions/shared/db/feature-flags';
import {
  claimFlagKey,
  createFeatureFlag,
  FlagKeyTakenError,
  replaceFeatureFlag,
} from '../../../functions/shared/db/feature-flags';
import { keys } from '../../../functions/shared/db/keys';
import { activeFlagFields } from '../../helpers/stored-records';

/** The flag repository's commands: the key claim protocol that keeps keys unique without transactions. */
const ddb = mockClient(DynamoDBDocumentClient);
const table = 'test-main';
const now = new Date('2026-11-21T12:00:00.000Z');

const fields: NewFeatureFlag = {
  ...activeFlagFields('beta', { groups: [{ properties: [], rollout_percentage: 50 }] }),
  name: 'Beta',
};

/** A stored flag item as the repository writes it. */
const storedItem = (id: number, key: string, deleted: boolean) => ({
  ...keys.featureFlag(7, id),
  ...scalarFields,
  id,
  team_id: 7,
  key,
  deleted,
  filters_json: '{"groups":[]}',
  created_at: now.toISOString(),
  updated_at: now.toISOString(),
  version: 1,
});

/** The flag's fields without `filters`, which the item holds as JSON text. */
const { filters: _filters, ...scalarFields } = fields;

const conditionFailed = () => new ConditionalCheckFailedException({ message: 'failed', $metadata: {} });

describe('feature flags repository', () => {
  beforeEach(() => {
    ddb.reset();
    ddb.on(QueryCommand).resolves({ Items: [] });
    ddb.on(GetCommand).resolves({});
    ddb.on(UpdateCommand, { Key: keys.counter('feature_flag') }).resolves({ Attributes: { value: 12 } });
    ddb.on(PutCommand).resolves({});
    ddb.on(DeleteCommand).resolves({});
  });

  it('creates a flag: id from the counter, key claimed, then the flag item, filters as JSON text', async () => {
    // Act
    const flag = await createFeatureFlag(table, 7, fields, now);

    // Assess
    expect(flag).toEqual({
      ...fields,
      id: 12,
      team_id: 7,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      version: 1,
    });
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': 'PROJECT#7', ':prefix': 'FLAG#' },
      ConsistentRead: true,
    });
    const puts = ddb.commandCalls(PutCommand).map((call) => call.args[0].input);
    expect(puts).toEqual([
      {
        TableName: table,
        Item: { PK: 'PROJECT#7', SK: 'FLAGKEY#beta', flag_id: 12 },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
      {
        TableName: table,
        Item: {
          PK: 'PROJECT#7',
          SK: 'FLAG#000000000012',
          ...scalarFields,
          filters_json: JSON.stringify(fields.filters),
          id: 12,
          team_id: 7,
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
          version: 1,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    ]);
  });

  it('refuses a key a live flag of the project has, writing nothing', async () => {
    // Prepare
    ddb.on(QueryCommand).resolves({ Items: [storedItem(3, 'beta', false)] });

    // Act / Assess
    await expect(createFeatureFlag(table, 7, fields, now)).rejects.toThrow(FlagKeyTakenError);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('takes the key over from a soft-deleted flag, then hard-deletes that flag', async () => {
    // Prepare
    ddb.on(QueryCommand).resolves({ Items: [storedItem(3, 'beta', true)] });
    ddb.on(GetCommand, { Key: keys.featureFlagKey(7, 'beta') }).resolves({ Item: { flag_id: 3 } });
    ddb.on(GetCommand, { Key: keys.featureFlag(7, 3) }).resolves({ Item: storedItem(3, 'beta', true) });

    // Act
    await createFeatureFlag(table, 7, fields, now);

    // Assess
    expect(ddb.commandCalls(PutCommand)[0]?.args[0].input).toMatchObject({
      Item: { flag_id: 12 },
      ConditionExpression: 'flag_id = :previous',
      ExpressionAttributeValues: { ':previous': 3 },
    });
    expect(ddb.commandCalls(DeleteCommand).map((call) => call.args[0].input)).toEqual([
      {
        TableName: table,
        Key: keys.featureFlag(7, 3),
        ConditionExpression: 'deleted = :true',
        ExpressionAttributeValues: { ':true': true },
      },
    ]);
  });

  it('loses a race for a key to the flag whose claim landed first', async () => {
    // Prepare: no claim at first read; a concurrent create claims it; the next read sees the winner
    ddb
      .on(GetCommand, { Key: keys.featureFlagKey(7, 'beta') })
      .resolvesOnce({})
      .resolves({ Item: { flag_id: 13 } });
    ddb.on(GetCommand, { Key: keys.featureFlag(7, 13) }).resolves({ Item: storedItem(13, 'beta', false) });
    ddb
      .on(PutCommand, { Item: { PK: 'PROJECT#7', SK: 'FLAGKEY#beta', flag_id: 12 } })
      .rejects(conditionFailed());

    // Act / Assess
    await expect(claimFlagKey(table, 7, 'beta', 12)).rejects.toThrow(FlagKeyTakenError);
  });

  it('treats a claim naming a renamed or vanished flag as free', async () => {
    // Prepare
    ddb.on(GetCommand, { Key: keys.featureFlagKey(7, 'beta') }).resolves({ Item: { flag_id: 4 } });
    ddb.on(GetCommand, { Key: keys.featureFlag(7, 4) }).resolves({ Item: storedItem(4, 'renamed', false) });

    // Act
    await claimFlagKey(table, 7, 'beta', 12);

    // Assess
    expect(ddb.commandCalls(PutCommand)[0]?.args[0].input.ConditionExpression).toBe('flag_id = :previous');
  });

  it('replaces a flag only over the version it was read at', async () => {
    // Prepare
    const flag = { ...fields, id: 12, team_id: 7, created_at: 'c', updated_at: 'u', version: 4 };
    ddb.on(GetCommand, { Key: keys.featureFlagKey(7, 'beta') }).resolves({ Item: { flag_id: 12 } });

    // Act
    const written = await replaceFeatureFlag(table, flag);
    ddb.on(PutCommand).rejects(conditionFailed());
    const lost = await replaceFeatureFlag(table, flag);

    // Assess
    expect(written).toBe(true);
    expect(lost).toBe(false);
    expect(ddb.commandCalls(PutCommand)[0]?.args[0].input).toMatchObject({
      ConditionExpression: 'version = :expected',
      ExpressionAttributeValues: { ':expected': 3 },
    });
  });
});
