import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { maskKey, sha256Hex } from '../auth/secrets';
import { documentClient } from './client';
import { nextId } from './counters';
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
  return result.Item as User | undefined;
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
  return result.Item as Membership | undefined;
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

export async function findPersonalApiKey(
  tableName: string,
  value: string,
): Promise<PersonalApiKey | undefined> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.personalApiKey(sha256Hex(value)) }),
  );
  return result.Item as PersonalApiKey | undefined;
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
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
  }
}
