import { createHash } from 'node:crypto';
import { invalidApiKey } from '../shared/public/errors';
import { projectOfToken } from '../shared/public/projects';
import type { Caller } from '../shared/auth/private-api';
import { authenticate } from '../shared/auth/private-api';
import { getMembership } from '../shared/db/memberships';
import type { FeatureFlagRecord } from '../shared/db/feature-flags';
import { getProject } from '../shared/db/projects';
import { NotFoundError, PermissionDeniedError } from '../shared/http/errors';
import { header, queryParam } from '../shared/http/request';
import type { HttpEvent, HttpResult, RouteFunction } from '../shared/http/types';
import { projectFlagsFor } from './definitions';
import type { ProjectFlags } from './project-flags';

/**
 * Flag definitions for SDKs that evaluate locally (posthog-node's
 * `src/extensions/feature-flags/feature-flags.ts`): `GET /flags/definitions` (posthog-node
 * 5) and `GET /api/feature_flag/local_evaluation` (posthog-node 4), both with a personal API key and
 * `?token=<project token>` (the caller's current project without one). Every flag not deleted, active
 * or not, the group type mapping and the cohorts, with an ETag: a poll that finds nothing changed gets
 * 304 and no body.
 */

interface DefinitionsProject {
  readonly id: number;
  readonly organization: string;
}

/** The project named by `?token=`, else the caller's current one; 403 unless the caller is a member. */
async function definitionsProject(
  tableName: string,
  caller: Caller,
  event: HttpEvent,
): Promise<DefinitionsProject> {
  const token = queryParam(event, 'token')?.trim();
  let project: DefinitionsProject | undefined;
  if (token) {
    const found = await projectOfToken(tableName, token);
    if (!found) throw invalidApiKey();
    project = { id: found.project_id, organization: found.organization };
  } else {
    const id = caller.user.current_project_id;
    project = id === null ? undefined : await getProject(tableName, id);
    if (!project) throw new NotFoundError('Project not found.');
  }
  const membership = await getMembership(tableName, caller.user.id, project.organization);
  if (!membership) throw new PermissionDeniedError("You don't have access to the project.");
  return project;
}

/** A flag as local evaluation reads it (PostHog's minimal flag serializer). */
function definitionOf(flag: FeatureFlagRecord) {
  return {
    id: flag.id,
    team_id: flag.team_id,
    name: flag.name,
    key: flag.key,
    filters: flag.filters,
    deleted: flag.deleted,
    active: flag.active,
    ensure_experience_continuity: flag.ensure_experience_continuity,
    rollout_percentage: flag.rollout_percentage,
    version: flag.version,
  };
}

interface Definitions {
  readonly body: string;
  /** The entity tag without its quotes: a hash of the body. */
  readonly etag: string;
}

/** Built once per loaded set of definitions, however many SDKs poll it. */
const built = new WeakMap<ProjectFlags, Definitions>();

export function definitionsOf(project: ProjectFlags): Definitions {
  let definitions = built.get(project);
  if (!definitions) {
    const body = JSON.stringify({
      flags: project.flags.map(definitionOf),
      group_type_mapping: project.groupTypeMapping,
      // PostHog's `send_cohorts` answer, sent always (SDKs that omit the parameter ignore it).
      cohorts: project.cohorts,
    });
    definitions = { body, etag: createHash('sha256').update(body).digest('hex').slice(0, 32) };
    built.set(project, definitions);
  }
  return definitions;
}

/** `If-None-Match` holds our tag, weak or strong (RFC 7232 weak comparison), or `*`. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, '').replace(/^"|"$/g, ''))
    .some((tag) => tag === etag || tag === '*');
}

export const localEvaluation =
  (tableName: string): RouteFunction =>
  async (event): Promise<HttpResult> => {
    const caller = await authenticate(event, tableName);
    const project = await definitionsProject(tableName, caller, event);
    const { body, etag } = definitionsOf(await projectFlagsFor(tableName, project.id));
    const headers = { ETag: `W/"${etag}"`, 'Cache-Control': 'private, must-revalidate' };
    if (etagMatches(header(event, 'if-none-match'), etag)) return { statusCode: 304, headers, body: '' };
    return { statusCode: 200, headers: { 'Content-Type': 'application/json', ...headers }, body };
  };
