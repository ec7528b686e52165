import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { generateProjectToken } from '../auth/secrets';
import type { Project } from '../domain/project';
import { newProject } from '../domain/project';
import { documentClient } from './client';
import { nextId } from './counters';
import { keys } from './keys';

/** What capture needs to know of a token: whose it is and how to treat its events. */
export interface ProjectTokenItem {
  project_id: number;
  organization: string;
  anonymize_ips: boolean;
}

/**
 * Creates a project and the lookup item capture resolves its token with. The token item is written
 * first and conditionally, so a project never exists without its token being unique.
 */
export async function createProject(
  tableName: string,
  fields: { organizationId: string; name: string },
): Promise<Project> {
  const id = await nextId(tableName, 'project');
  const project = newProject({
    id,
    uuid: randomUUID(),
    organization: fields.organizationId,
    api_token: generateProjectToken(),
    name: fields.name,
    now: new Date().toISOString(),
  });
  const tokenItem: ProjectTokenItem = { project_id: id, organization: project.organization, anonymize_ips: false };
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.projectToken(project.api_token), ...tokenItem },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.project(id), ...keys.projectsOfOrganization(project.organization, id), ...project },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return project;
}

export async function getProject(tableName: string, projectId: number): Promise<Project | undefined> {
  const result = await documentClient.send(new GetCommand({ TableName: tableName, Key: keys.project(projectId) }));
  if (!result.Item) return undefined;
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g2, ...project } = result.Item;
  return project as Project;
}

export async function findProjectByToken(tableName: string, token: string): Promise<ProjectTokenItem | undefined> {
  const result = await documentClient.send(new GetCommand({ TableName: tableName, Key: keys.projectToken(token) }));
  return result.Item as ProjectTokenItem | undefined;
}
