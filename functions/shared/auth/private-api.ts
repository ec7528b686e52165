import type { User } from '../db/accounts';
import { findPersonalApiKey, getMembership, getUser, touchPersonalApiKey } from '../db/accounts';
import { getProject } from '../db/projects';
import type { Project } from '../domain/project';
import { AuthenticationError, NotFoundError, PermissionDeniedError } from '../http/errors';
import { header, queryParam } from '../http/request';
import type { HttpEvent } from '../http/types';

export interface Caller {
  readonly user: User;
}

const bearer = /^Bearer\s+(\S.*)$/i;

/** The personal API key of a request: `Authorization: Bearer`, then `personal_api_key` in the query. */
export function personalApiKeyOf(event: HttpEvent): string | undefined {
  const authorization = header(event, 'authorization');
  const match = authorization ? bearer.exec(authorization.trim()) : null;
  if (match?.[1]) return match[1].trim();
  return queryParam(event, 'personal_api_key') || undefined;
}

/**
 * Who is calling (spec §5 rule 3): no key → 401 `not_authenticated`; a key we do not know (never
 * issued, revoked, or its user gone) → 401 `invalid_personal_api_key`.
 */
export async function authenticate(event: HttpEvent, tableName: string): Promise<Caller> {
  const value = personalApiKeyOf(event);
  if (!value)
    throw new AuthenticationError('not_authenticated', 'Authentication credentials were not provided.');
  const key = await findPersonalApiKey(tableName, value);
  const user = key ? await getUser(tableName, key.user_id) : undefined;
  if (!key || !user) throw new AuthenticationError('invalid_personal_api_key', 'Invalid Personal API key.');
  await touchPersonalApiKey(tableName, value);
  return { user };
}

/**
 * The project named by `:project_id`, if the caller may see it: `@current` is the caller's current
 * project; a non-integer or unknown id → 404; a project of an organization the caller is not in → 403.
 */
export async function resolveProject(
  caller: Caller,
  rawProjectId: string | undefined,
  tableName: string,
): Promise<Project> {
  const projectId =
    rawProjectId === '@current' ? caller.user.current_project_id : parseProjectId(rawProjectId);
  const project = projectId === null ? undefined : await getProject(tableName, projectId);
  if (!project) throw new NotFoundError('Project not found.');
  const membership = await getMembership(tableName, caller.user.id, project.organization);
  if (!membership) throw new PermissionDeniedError("You don't have access to the project.");
  return project;
}

function parseProjectId(raw: string | undefined): number | null {
  if (!raw || !/^\d{1,15}$/.test(raw)) return null;
  return Number(raw);
}
