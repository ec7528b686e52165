import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { documentClient } from './client';
import { keys } from './keys';
import { withoutKeys } from './operations';

/** Organizations: the tenants that own projects and that users are members of. */

export interface Organization {
  id: string;
  name: string;
  slug: string;
  created_at: string;
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

export async function getOrganization(
  tableName: string,
  organizationId: string,
): Promise<Organization | undefined> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.organization(organizationId) }),
  );
  return result.Item ? withoutKeys<Organization>(result.Item) : undefined;
}
