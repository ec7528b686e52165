import { routeScopes } from '../../routes';
import type { Membership, MembershipLevel } from '../db/memberships';
import type { PersonalApiKey } from '../db/personal-api-keys';
import type { User } from '../db/users';
import { getMembership } from '../db/memberships';
import { findPersonalApiKey, touchPersonalApiKey } from '../db/personal-api-keys';
import { getUser } from '../db/users';
import { getProject } from '../db/projects';
import type { Project } from '../domain/project';
import { HttpError, NotFoundError, PermissionDeniedError } from '../http/errors';
import { bodyField } from '../http/json-body';
import { header, queryParam } from '../http/request';
import type { HttpEvent } from '../http/types';
import type { KeyScope } from './scopes';
import { missingScope } from './scopes';

export interface Caller {
  readonly user: User;
  /** The personal API key the request came with. */
  readonly key: PersonalApiKey;
}

/** A project the caller may see, and the membership through which they see it. */
export interface ProjectAccess {
  readonly project: Project;
  readonly membership: Membership;
}

/**
 * A 401 of the private API. As DRF's with PostHog's key authentication first, it names the scheme
 * to use in `WWW-Authenticate` (which is also why it is 401 rather than 403).
 */
export class PrivateApiAuthenticationError extends HttpError {
  constructor(code: 'not_authenticated' | 'invalid_personal_api_key', detail: string) {
    super(401, 'authentication_error', code, detail, null, { 'WWW-Authenticate': 'Bearer' });
  }
}

const bearer = /^Bearer\s+(\S.*)$/i;

/**
 * The personal API key of a request, where PostHog looks for it (`posthog/auth.py`): the
 * `Authorization: Bearer` header, then a `personal_api_key` field of the JSON body (parsed by the
 * `jsonBody` middleware), then the `personal_api_key` query parameter.
 */
export function personalApiKeyOf(event: HttpEvent): string | undefined {
  const authorization = header(event, 'authorization');
  const match = authorization ? bearer.exec(authorization.trim()) : null;
  if (match?.[1]) return match[1].trim();
  return bodyField(event, 'personal_api_key') || queryParam(event, 'personal_api_key') || undefined;
}

/** DynamoDB refuses keys over 2 KB; no real personal API key comes near, so a longer one is unknown. */
const maxKeyLength = 512;

/** PostHog's answer to a key without a scope (`APIScopePermission`). */
export function missingScopeError(scope: KeyScope): PermissionDeniedError {
  return new PermissionDeniedError(`API key missing required scope '${scope}'`);
}

/**
 * 403 unless the key carries every scope the request's route requires. A route that declares none
 * cannot be called with a key at all: a test keeps every private route declaring its scopes.
 */
function requireRouteScopes(event: HttpEvent, key: PersonalApiKey): void {
  const required = routeScopes.get(event.routeKey);
  if (!required) throw new Error(`Route ${event.routeKey} declares no scopes`);
  const missing = missingScope(key.scopes, required);
  if (missing) throw missingScopeError(missing);
}

/** Requests in flight already authenticated by their handler (`authenticateRequest`), and their caller. */
const authenticatedRequests = new WeakMap<HttpEvent, Caller>();

/**
 * Who is calling: no key → 401 `not_authenticated`; a key we do not know (never
 * issued, revoked, or its user gone) → 401 `invalid_personal_api_key`; a key without the scopes the
 * route requires → 403 `permission_denied`, as PostHog's `APIScopePermission` answers. A known key's
 * `last_used_at` is refreshed at most hourly. A request its handler already authenticated is not
 * read again.
 */
export async function authenticate(event: HttpEvent, tableName: string): Promise<Caller> {
  return authenticatedRequests.get(event) ?? readCaller(event, tableName);
}

/**
 * Authenticates a request before its route function runs (the handler factory's middleware,
 * http/key-scopes.ts): the route's `authenticate` then answers from it, until `forgetRequest`.
 */
export async function authenticateRequest(event: HttpEvent, tableName: string): Promise<void> {
  authenticatedRequests.set(event, await readCaller(event, tableName));
}

export function forgetRequest(event: HttpEvent): void {
  authenticatedRequests.delete(event);
}

async function readCaller(event: HttpEvent, tableName: string): Promise<Caller> {
  const value = personalApiKeyOf(event);
  if (!value)
    throw new PrivateApiAuthenticationError(
      'not_authenticated',
      'Authentication credentials were not provided.',
    );
  const key = value.length <= maxKeyLength ? await findPersonalApiKey(tableName, value, true) : undefined;
  const user = key ? await getUser(tableName, key.user_id) : undefined;
  if (!key || !user)
    throw new PrivateApiAuthenticationError('invalid_personal_api_key', 'Invalid Personal API key.');
  await touchPersonalApiKey(tableName, value);
  requireRouteScopes(event, key);
  return { user, key };
}

function parseProjectId(raw: string | undefined): number | null {
  if (!raw || !/^\d{1,15}$/.test(raw)) return null;
  return Number(raw);
}

/**
 * The project named by `:project_id`, if the caller may see it (`posthog/api/routing.py`): `@current` is the
 * caller's current project; a non-integer or unknown id (or no current project) → 404 `Project not
 * found.`; a project of an organization the caller is not a member of → 403 `permission_denied`.
 */
export async function resolveProjectAccess(
  caller: Pick<Caller, 'user'>,
  rawProjectId: string | undefined,
  tableName: string,
): Promise<ProjectAccess> {
  const projectId =
    rawProjectId === '@current' ? caller.user.current_project_id : parseProjectId(rawProjectId);
  const project = projectId === null ? undefined : await getProject(tableName, projectId);
  if (!project) throw new NotFoundError('Project not found.');
  const membership = await getMembership(tableName, caller.user.id, project.organization);
  if (!membership) throw new PermissionDeniedError("You don't have access to the project.");
  return { project, membership };
}

/** PostHog's admin level: creating, changing and deleting projects needs at least this. */
export const adminLevel: MembershipLevel = 8;

/** 403 unless the membership is at least admin (PostHog's project management permissions). */
export function requireAdmin(membership: Membership | undefined, detail: string): void {
  if (!membership || membership.level < adminLevel) throw new PermissionDeniedError(detail);
}
