import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import { mockClient } from 'aws-sdk-client-mock';
import { envNames } from '../../functions/shared/config';
import { environmentValue } from '../../bin/environment';
import { sha256Hex } from '../../functions/shared/auth/secrets';
import type { Membership, MembershipLevel } from '../../functions/shared/db/memberships';
import type { User } from '../../functions/shared/db/users';
import { keys } from '../../functions/shared/db/keys';
import type { Project } from '../../functions/shared/domain/project';
import { newProject } from '../../functions/shared/domain/project';

/**
 * The single table behind `mockClient(DynamoDBDocumentClient)` for private API handler unit tests:
 * a caller with a key, their memberships and projects; every other GetItem finds nothing.
 */
export const ddb: AwsClientStub<DynamoDBDocumentClient> = mockClient(DynamoDBDocumentClient);
export const table = environmentValue(envNames.singleTable)!;

export const callerKey = 'phx_caller_key';
export const bearer = { authorization: `Bearer ${callerKey}` };

export const organizationId = '1f0e8a52-6b1e-4f44-a9b1-31a4f1b0c0de';
export const otherOrganizationId = '9a0e8a52-6b1e-4f44-a9b1-31a4f1b0c0aa';

export const caller: User = {
  id: 3,
  uuid: '0b6c2c3e-2c6f-4c4f-9a43-6d9a7f1f0a01',
  distinct_id: 'caller',
  first_name: 'Ann',
  email: 'ann@example.com',
  date_joined: '2026-01-01T00:00:00.000Z',
  current_organization_id: organizationId,
  current_project_id: 7,
};

export function aProject(
  id: number,
  organization = organizationId,
  overrides: Partial<Project> = {},
): Project {
  return {
    ...newProject({
      id,
      uuid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
      organization,
      api_token: `phc_token_${id}`,
      name: `Project ${id}`,
      now: '2026-11-01T00:00:00.000Z',
    }),
    ...overrides,
  };
}

export function membership(level: MembershipLevel, organization = organizationId): Membership {
  return { organization_id: organization, user_id: caller.id, level, joined_at: '2026-01-01T00:00:00.000Z' };
}

/** Fresh mocks: the caller's key and user, their membership at `level`, and these projects. */
export function givenCaller(options: { level?: MembershipLevel; projects?: Project[] } = {}): void {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  const keyItem = { ...keys.personalApiKey(sha256Hex(callerKey)), id: 'key-1', user_id: caller.id };
  ddb.on(GetCommand, { Key: keys.personalApiKey(sha256Hex(callerKey)) }).resolves({ Item: keyItem });
  ddb
    .on(GetCommand, { Key: keys.user(caller.id) })
    .resolves({ Item: { ...keys.user(caller.id), ...caller } });
  ddb
    .on(GetCommand, { Key: keys.membership(caller.id, organizationId) })
    .resolves({ Item: membership(options.level ?? 15) });
  for (const project of options.projects ?? [aProject(7)]) {
    ddb.on(GetCommand, { Key: keys.project(project.id) }).resolves({
      Item: { ...keys.project(project.id), ...project },
    });
  }
}

/** The inputs of every command of a kind the handler sent, in order. */
export function inputsOf<I>(command: new (input: I) => unknown): I[] {
  return ddb.commandCalls(command as never).map((call) => call.args[0].input as I);
}
