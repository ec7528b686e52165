import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { generateProjectToken } from '../auth/secrets';
import type { Project } from '../domain/project';
import { newProject } from '../domain/project';
import { documentClient } from './client';
import { nextId } from './counters';
import {
  isConditionalCheckFailed,
  mainIndex,
  queryAll,
  assignmentsOf,
  setExpression,
  withoutKeys,
} from './operations';
import { keys } from './keys';

/** What capture needs to know of a token: whose it is and how to treat its events. */
export interface ProjectTokenItem {
  project_id: number;
  organization: string;
  anonymize_ips: boolean;
}

/** The fields of a project a client may set; the others are the server's. */
export type ProjectChanges = Partial<
  Omit<
    Project,
    | 'id'
    | 'uuid'
    | 'organization'
    | 'api_token'
    | 'created_at'
    | 'updated_at'
    | 'ingested_event'
    | 'is_demo'
    | 'has_group_types'
  >
>;

/**
 * Creates a project and the lookup item capture resolves its token with. The token item is written
 * first and conditionally, so a project never exists without its token being unique. Project ids
 * come from an atomic counter and are never reused (what makes a deleted project's data unreachable,
 * see `deleteProject`).
 */
export async function createProject(
  tableName: string,
  fields: { organizationId: string; name: string; settings?: ProjectChanges },
): Promise<Project> {
  const id = await nextId(tableName, 'project');
  const now = new Date().toISOString();
  const project: Project = {
    ...newProject({
      id,
      uuid: randomUUID(),
      organization: fields.organizationId,
      api_token: generateProjectToken(),
      name: fields.name,
      now,
    }),
    ...fields.settings,
  };
  const tokenItem: ProjectTokenItem = {
    project_id: id,
    organization: project.organization,
    anonymize_ips: project.anonymize_ips,
  };
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
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.project(projectId) }),
  );
  if (!result.Item) return undefined;
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g2, ...project } = result.Item;
  return project as Project;
}

export async function findProjectByToken(
  tableName: string,
  token: string,
): Promise<ProjectTokenItem | undefined> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.projectToken(token) }),
  );
  return result.Item as ProjectTokenItem | undefined;
}

/**
 * Flips `ingested_event` to true on a project's first event (as PostHog's plugin-server sets it): one conditional write
 * that changes nothing once the flag is true, so concurrent consumers and replays are harmless. The
 * token item does not carry the flag, so it needs no update. Returns whether this call flipped it.
 */
export async function markProjectIngestedEvent(tableName: string, projectId: number): Promise<boolean> {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.project(projectId),
        UpdateExpression: 'SET ingested_event = :true',
        ConditionExpression:
          'attribute_exists(PK) AND (attribute_not_exists(ingested_event) OR ingested_event = :false)',
        ExpressionAttributeValues: { ':true': true, ':false': false },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** The projects of an organization, by id (one Query of GSI1; an organization has few). */
export async function listProjectsOfOrganization(
  tableName: string,
  organizationId: string,
): Promise<Project[]> {
  const items = await queryAll({
    TableName: tableName,
    IndexName: mainIndex,
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.projectsOfOrganizationPartition(organizationId) },
  });
  return items.map((item) => withoutKeys<Project>(item));
}

/**
 * Applies `changes` to a project and returns it as stored; undefined if it no longer exists. The
 * token item carries `anonymize_ips` for capture, so a change of it is written there too (after the
 * project: a retry of the same PATCH repairs a failure between the two writes).
 */
export async function updateProject(
  tableName: string,
  project: Project,
  changes: ProjectChanges,
  now = new Date(),
): Promise<Project | undefined> {
  const fields = { ...changes, updated_at: now.toISOString() };
  let updated: Project;
  try {
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.project(project.id),
        ...setExpression(assignmentsOf(fields)),
        ConditionExpression: 'attribute_exists(PK)',
        ReturnValues: 'ALL_NEW',
      }),
    );
    updated = withoutKeys<Project>(result.Attributes ?? {});
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
  if (changes.anonymize_ips !== undefined) {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.projectToken(updated.api_token),
        UpdateExpression: 'SET anonymize_ips = :anonymize',
        ConditionExpression: 'attribute_exists(PK) AND project_id = :project',
        ExpressionAttributeValues: { ':anonymize': updated.anonymize_ips, ':project': updated.id },
      }),
    );
  }
  return updated;
}

/**
 * Deletes a project: first its token item, so capture refuses the token from its next lookup on
 * (capture caches a token for at most 5 s per container: a container that had not cached it refuses
 * it at once, one that had within 5 s), then the project item, so every private route answers 404.
 *
 * The project's data is not deleted item by item: its events (events table), persons, distinct ids,
 * event definitions and volume counters stay keyed by the project's id, which no route can reach
 * once the project item is gone, and which is never given to another project (ids come from an
 * atomic counter). Events still queued when the project is deleted are stored the same way,
 * equally unreachable. Both deletes are idempotent, so a failed delete can simply be retried.
 */
export async function deleteProject(tableName: string, project: Project): Promise<void> {
  try {
    await documentClient.send(
      new DeleteCommand({
        TableName: tableName,
        Key: keys.projectToken(project.api_token),
        ConditionExpression: 'attribute_not_exists(PK) OR project_id = :project',
        ExpressionAttributeValues: { ':project': project.id },
      }),
    );
  } catch (error) {
    // A token item of another project would be a bug elsewhere: never delete it, but go on.
    if (!isConditionalCheckFailed(error)) throw error;
  }
  await documentClient.send(new DeleteCommand({ TableName: tableName, Key: keys.project(project.id) }));
}
