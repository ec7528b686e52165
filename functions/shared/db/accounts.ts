import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { maskKey, sha256Hex } from '../auth/secrets';
import { documentClient } from './client';
import { nextId } from './counters';
import {
  batchGetItems,
  isConditionalCheckFailed,
  mainIndex,
  queryAll,
  queryItems,
  assignmentsOf,
  setExpression,
  withoutKeys,
} from './operations';
import { keys } from './keys';

export interface Organization {
  id: string;
  name: string;
  slug: string;
  created_at: string;
}

export interface User {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  email: string;
  date_joined: string;
  current_organization_id: string;
  current_project_id: number | null;
}

/** PostHog's membership levels: 1 member, 8 admin, 15 owner. */
export type MembershipLevel = 1 | 8 | 15;

export interface Membership {
  organization_id: string;
  user_id: number;
  level: MembershipLevel;
  joined_at: string;
}

export interface PersonalApiKey {
  id: string;
  user_id: number;
  label: string;
  mask_value: string;
  created_at: string;
  last_used_at: string | null;
}

const slugify = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'organization';

export async function createOrganization(tableName: string, name: string): Promise<Organization> {
  const organization: Organization = {
    id: randomUUID(),
    name,
    slug: slugify(name),
    created_at: new Date().toISOString(),
  };
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.organization(organization.id), ...organization },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return organization;
}

export async function createUser(
  tableName: string,
  fields: { first_name: string; email: string; organizationId: string },
): Promise<User> {
  const id = await nextId(tableName, 'user');
  const uuid = randomUUID();
  const user: User = {
    id,
    uuid,
    distinct_id: uuid,
    first_name: fields.first_name,
    email: fields.email,
    date_joined: new Date().toISOString(),
    current_organization_id: fields.organizationId,
    current_project_id: null,
  };
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.user(id), ...user },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return user;
}

export async function getUser(tableName: string, userId: number): Promise<User | undefined> {
  const result = await documentClient.send(new GetCommand({ TableName: tableName, Key: keys.user(userId) }));
  return result.Item ? withoutKeys<User>(result.Item) : undefined;
}

/** Users by id (batchGetItems: 100 keys a call, unprocessed keys retried); missing ids are left out. */
export async function getUsers(tableName: string, userIds: readonly number[]): Promise<Map<number, User>> {
  const items = await batchGetItems<Record<string, unknown>>(tableName, [...new Set(userIds)].map(keys.user));
  return new Map(items.map((item) => withoutKeys<User>(item)).map((user) => [user.id, user]));
}

/** Sets the user's name and/or current organization and project; returns the user as stored. */
export async function updateUser(
  tableName: string,
  userId: number,
  changes: Partial<Pick<User, 'first_name' | 'current_organization_id' | 'current_project_id'>>,
): Promise<User | undefined> {
  const assignments = assignmentsOf(changes).filter(({ value }) => value !== undefined);
  if (assignments.length === 0) return getUser(tableName, userId);
  try {
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.user(userId),
        ...setExpression(assignments),
        ConditionExpression: 'attribute_exists(PK)',
        ReturnValues: 'ALL_NEW',
      }),
    );
    return withoutKeys<User>(result.Attributes ?? {});
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
}

export async function getOrganization(
  tableName: string,
  organizationId: string,
): Promise<Organization | undefined> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.organization(organizationId) }),
  );
  return result.Item ? withoutKeys<Organization>(result.Item) : undefined;
}

export async function setCurrentProject(tableName: string, userId: number, projectId: number): Promise<void> {
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.user(userId),
      UpdateExpression: 'SET current_project_id = :project',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':project': projectId },
    }),
  );
}

export async function addMembership(
  tableName: string,
  userId: number,
  organizationId: string,
  level: MembershipLevel,
): Promise<Membership> {
  const membership: Membership = {
    organization_id: organizationId,
    user_id: userId,
    level,
    joined_at: new Date().toISOString(),
  };
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.membership(userId, organizationId), ...membership },
    }),
  );
  return membership;
}

export async function getMembership(
  tableName: string,
  userId: number,
  organizationId: string,
): Promise<Membership | undefined> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.membership(userId, organizationId) }),
  );
  return result.Item ? withoutKeys<Membership>(result.Item) : undefined;
}

/** Every organization membership of a user (one Query of the user's partition). */
export async function listMemberships(tableName: string, userId: number): Promise<Membership[]> {
  const prefix = keys.membershipPrefix(userId);
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
    }),
  );
  return (result.Items ?? []).map((item) => withoutKeys<Membership>(item));
}

/** Stores a new key by its hash only; the caller shows `value` once and never again. */
export async function createPersonalApiKey(
  tableName: string,
  userId: number,
  label: string,
  value: string,
): Promise<PersonalApiKey> {
  const key: PersonalApiKey = {
    id: randomUUID(),
    user_id: userId,
    label,
    mask_value: maskKey(value),
    created_at: new Date().toISOString(),
    last_used_at: null,
  };
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.personalApiKey(sha256Hex(value)),
        ...keys.personalApiKeysOfUser(userId, key.created_at, key.id),
        ...key,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return key;
}

/**
 * The key of this value, if it exists. `consistent` asks for a strongly consistent read: the private
 * API's, so that a key deleted a moment ago never authenticates again (capture caches keys for 5 s
 * anyway, and reads eventually consistently at half the price).
 */
export async function findPersonalApiKey(
  tableName: string,
  value: string,
  consistent = false,
): Promise<PersonalApiKey | undefined> {
  const result = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.personalApiKey(sha256Hex(value)),
      ...(consistent ? { ConsistentRead: true } : {}),
    }),
  );
  return result.Item ? withoutKeys<PersonalApiKey>(result.Item) : undefined;
}

/** A user's personal API keys, newest first (PostHog's order), from GSI1. */
export async function listPersonalApiKeys(tableName: string, userId: number): Promise<PersonalApiKey[]> {
  const items = await queryAll({
    TableName: tableName,
    IndexName: mainIndex,
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.personalApiKeysOfUserPartition(userId) },
    ScanIndexForward: false,
  });
  return items.map((item) => withoutKeys<PersonalApiKey>(item));
}

/**
 * Deletes one of the user's keys by id; false if the user has no such key. The key item is found
 * through the user's keys (its own key is the value's hash, which is not stored anywhere else), and
 * deleted on condition it is still that user's, so nobody deletes another user's key.
 */
export async function deletePersonalApiKey(
  tableName: string,
  userId: number,
  keyId: string,
): Promise<boolean> {
  const found = queryItems({
    TableName: tableName,
    IndexName: mainIndex,
    KeyConditionExpression: 'GSI1PK = :pk',
    FilterExpression: '#id = :id',
    ExpressionAttributeNames: { '#id': 'id' },
    ExpressionAttributeValues: { ':pk': keys.personalApiKeysOfUserPartition(userId), ':id': keyId },
  });
  for await (const item of found) {
    try {
      await documentClient.send(
        new DeleteCommand({
          TableName: tableName,
          Key: { PK: String(item.PK), SK: String(item.SK) },
          ConditionExpression: 'user_id = :user AND #id = :id',
          ExpressionAttributeNames: { '#id': 'id' },
          ExpressionAttributeValues: { ':user': userId, ':id': keyId },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }
  return false;
}

const lastUsedResolutionMs = 60 * 60 * 1000;

/** PostHog updates `last_used_at` at most hourly: one conditional write per key and hour. */
export async function touchPersonalApiKey(tableName: string, value: string, now = new Date()): Promise<void> {
  const threshold = new Date(now.getTime() - lastUsedResolutionMs).toISOString();
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.personalApiKey(sha256Hex(value)),
        UpdateExpression: 'SET last_used_at = :now',
        ConditionExpression:
          'attribute_exists(PK) AND (attribute_type(last_used_at, :null) OR last_used_at < :threshold)',
        ExpressionAttributeValues: { ':now': now.toISOString(), ':threshold': threshold, ':null': 'NULL' },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}
