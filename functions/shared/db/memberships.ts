import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './client';
import { keys } from './keys';
import { withoutKeys } from './operations';

/** Memberships: which organizations a user belongs to, and at which level. */

/** PostHog's membership levels: 1 member, 8 admin, 15 owner. */
export type MembershipLevel = 1 | 8 | 15;

export interface Membership {
  organization_id: string;
  user_id: number;
  level: MembershipLevel;
  joined_at: string;
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
