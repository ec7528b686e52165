import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { FlagFilters } from '../domain/flags';
import { documentClient } from './client';
import { nextId } from './counters';
import { isConditionalCheckFailed, queryPrefix, withoutKeys } from './operations';
import { keys } from './keys';

/**
 * Feature flags (keys.ts): one item per flag under its project, plus one key claim item per key so
 * that two live flags never share a key without transactions. The claim names the flag holding the
 * key; a claim whose flag is gone, soft-deleted or renamed since is free, and is taken over with a
 * condition on the flag it named, so two concurrent creates of one key cannot both win.
 */

/** Who created a flag, as PostHog embeds a user (UserBasic). */
export interface FlagCreator {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  email: string;
}

/** A stored flag: PostHog's model fields (`posthog/models/feature_flag/feature_flag.py`), `filters` kept exactly as validated. */
export interface FeatureFlagRecord {
  id: number;
  team_id: number;
  key: string;
  /** PostHog calls the description `name`. */
  name: string;
  filters: FlagFilters;
  active: boolean;
  deleted: boolean;
  ensure_experience_continuity: boolean;
  is_remote_configuration: boolean;
  /** Legacy flags only; flags created through the API keep their rollout in `filters.groups`. */
  rollout_percentage: number | null;
  created_at: string;
  created_by: FlagCreator | null;
  updated_at: string;
  /** 1 at creation, +1 per update: what `/flags` reports as `metadata.version`. */
  version: number;
}

/**
 * The item's attributes. Filters are stored as JSON text: they are user JSON, and DynamoDB's number
 * type refuses values JSON allows (1e200), so a map attribute could fail where the text never does.
 */
interface FeatureFlagItem extends Omit<FeatureFlagRecord, 'filters'> {
  filters_json: string;
}

interface FlagKeyClaimItem {
  flag_id: number;
}

/** Another live flag of the project holds the key. */
export class FlagKeyTakenError extends Error {
  constructor(readonly key: string) {
    super(`There is already a feature flag with the key ${key}`);
    this.name = 'FlagKeyTakenError';
  }
}

function toItem(flag: FeatureFlagRecord): Record<string, unknown> {
  const { filters, ...fields } = flag;
  const item: FeatureFlagItem = { ...fields, filters_json: JSON.stringify(filters) };
  return { ...keys.featureFlag(flag.team_id, flag.id), ...item };
}

function fromItem(raw: Record<string, unknown>): FeatureFlagRecord {
  const { filters_json: filtersJson, ...fields } = withoutKeys<FeatureFlagItem>(raw);
  return { ...fields, filters: JSON.parse(filtersJson) as FlagFilters };
}

/** Every flag of a project, deleted ones included, by id. */
export async function listFeatureFlags(
  tableName: string,
  projectId: number,
  consistentRead = false,
): Promise<FeatureFlagRecord[]> {
  return (await queryPrefix(tableName, keys.featureFlagsPrefix(projectId), consistentRead)).map(fromItem);
}

export async function getFeatureFlag(
  tableName: string,
  projectId: number,
  flagId: number,
): Promise<FeatureFlagRecord | undefined> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.featureFlag(projectId, flagId), ConsistentRead: true }),
  );
  return result.Item ? fromItem(result.Item) : undefined;
}

/** The live (not deleted) flag holding `key`, if any. */
export async function findLiveFlagByKey(
  tableName: string,
  projectId: number,
  key: string,
): Promise<FeatureFlagRecord | undefined> {
  const claim = await readClaim(tableName, projectId, key);
  if (!claim) return undefined;
  const flag = await getFeatureFlag(tableName, projectId, claim.flag_id);
  return flag && !flag.deleted && flag.key === key ? flag : undefined;
}

async function readClaim(
  tableName: string,
  projectId: number,
  key: string,
): Promise<FlagKeyClaimItem | undefined> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.featureFlagKey(projectId, key), ConsistentRead: true }),
  );
  return result.Item as FlagKeyClaimItem | undefined;
}

const maxClaimAttempts = 3;

/**
 * Makes `flagId` the holder of `key`, unless another live flag holds it (FlagKeyTakenError). The
 * claim is taken over only if it still names the flag read a moment ago: a concurrent claimer makes
 * the condition fail, and the next attempt sees who won.
 */
export async function claimFlagKey(
  tableName: string,
  projectId: number,
  key: string,
  flagId: number,
): Promise<void> {
  for (let attempt = 0; attempt < maxClaimAttempts; attempt++) {
    const claim = await readClaim(tableName, projectId, key);
    if (claim?.flag_id === flagId) return;
    if (claim) {
      const holder = await getFeatureFlag(tableName, projectId, claim.flag_id);
      if (holder && !holder.deleted && holder.key === key) throw new FlagKeyTakenError(key);
    }
    try {
      await documentClient.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.featureFlagKey(projectId, key), flag_id: flagId },
          ...(claim
            ? {
                ConditionExpression: 'flag_id = :previous',
                ExpressionAttributeValues: { ':previous': claim.flag_id },
              }
            : { ConditionExpression: 'attribute_not_exists(PK)' }),
        }),
      );
      return;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }
  throw new FlagKeyTakenError(key);
}

/** What the caller decides of a new flag; the repository adds id, timestamps and version. */
export type NewFeatureFlag = Omit<
  FeatureFlagRecord,
  'id' | 'team_id' | 'created_at' | 'updated_at' | 'version'
>;

/**
 * Creates a flag with the next integer id. Its key is claimed first; soft-deleted flags with the same
 * key are then hard-deleted, as PostHog does when a key is reused. A crash between the steps leaves a
 * claim naming a flag that does not exist, which the next claimer treats as free.
 */
export async function createFeatureFlag(
  tableName: string,
  projectId: number,
  fields: NewFeatureFlag,
  now = new Date(),
): Promise<FeatureFlagRecord> {
  const existing = await listFeatureFlags(tableName, projectId, true);
  if (existing.some((flag) => !flag.deleted && flag.key === fields.key))
    throw new FlagKeyTakenError(fields.key);
  const id = await nextId(tableName, 'feature_flag');
  await claimFlagKey(tableName, projectId, fields.key, id);
  const replaced = existing.filter((flag) => flag.deleted && flag.key === fields.key);
  await Promise.all(replaced.map((flag) => deleteFeatureFlag(tableName, projectId, flag.id)));
  const timestamp = now.toISOString();
  const flag: FeatureFlagRecord = {
    ...fields,
    id,
    team_id: projectId,
    created_at: timestamp,
    updated_at: timestamp,
    version: 1,
  };
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: toItem(flag),
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return flag;
}

/**
 * Writes `flag` over the stored one only if that is still at `flag.version - 1`; false if another
 * update came first. A flag that is live after the update holds its key (FlagKeyTakenError if
 * another live flag does).
 */
export async function replaceFeatureFlag(tableName: string, flag: FeatureFlagRecord): Promise<boolean> {
  if (!flag.deleted) await claimFlagKey(tableName, flag.team_id, flag.key, flag.id);
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: toItem(flag),
        ConditionExpression: 'version = :expected',
        ExpressionAttributeValues: { ':expected': flag.version - 1 },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** Removes a flag for good: only a soft-deleted flag whose key is reused (PostHog's rule). */
async function deleteFeatureFlag(tableName: string, projectId: number, flagId: number): Promise<void> {
  await documentClient
    .send(
      new DeleteCommand({
        TableName: tableName,
        Key: keys.featureFlag(projectId, flagId),
        ConditionExpression: 'deleted = :true',
        ExpressionAttributeValues: { ':true': true },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionalCheckFailed(error)) throw error;
    });
}
