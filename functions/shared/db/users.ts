import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { documentClient } from './client';
import { nextId } from './counters';
import { keys } from './keys';
import {
  assignmentsOf,
  batchGetItems,
  isConditionalCheckFailed,
  setExpression,
  withoutKeys,
} from './operations';

/** Users of the private API, by numeric id. */

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
