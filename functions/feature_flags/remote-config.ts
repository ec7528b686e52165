import type { Caller } from '../shared/auth/private-api';
import { resolveProjectAccess } from '../shared/auth/private-api';
import { getMembership } from '../shared/db/memberships';
import type { FeatureFlagRecord } from '../shared/db/feature-flags';
import { findLiveFlagByKey, getFeatureFlag } from '../shared/db/feature-flags';
import { findProjectByToken } from '../shared/db/projects';
import { NotFoundError, PermissionDeniedError } from '../shared/http/errors';
import { privateRoute } from '../shared/http/private-route';
import { queryParam } from '../shared/http/request';
import { json } from '../shared/http/responses';
import type { HttpEvent } from '../shared/http/types';
import { couldBeFlagKey } from './keys';

/**
 * The project of a remote config request: posthog-node 5 asks for `@current` with `?token=<project
 * token>`, which then names the project (the key's user must be a member); otherwise the path's.
 */
async function projectIdOf(singleTable: string, caller: Caller, event: HttpEvent): Promise<number> {
  const rawProjectId = event.pathParameters?.project_id;
  const token = queryParam(event, 'token')?.trim();
  if (rawProjectId === '@current' && token) {
    const project = token.length <= 512 ? await findProjectByToken(singleTable, token) : undefined;
    if (!project) throw new NotFoundError('Project not found.');
    if (!(await getMembership(singleTable, caller.user.id, project.organization)))
      throw new PermissionDeniedError("You don't have access to the project.");
    return project.project_id;
  }
  return (await resolveProjectAccess(caller, rawProjectId, singleTable)).project.id;
}

/**
 * A flag by id (digits) or key, as PostHog's `remote_config` looks it up; deleted flags are gone.
 * Text no flag key can be (a 3 KB one would also be a key DynamoDB refuses) names no flag.
 */
async function flagOf(
  singleTable: string,
  projectId: number,
  idOrKey: string,
): Promise<FeatureFlagRecord | undefined> {
  let flag: FeatureFlagRecord | undefined;
  if (/^\d{1,15}$/.test(idOrKey)) flag = await getFeatureFlag(singleTable, projectId, Number(idOrKey));
  else if (couldBeFlagKey(idOrKey)) flag = await findLiveFlagByKey(singleTable, projectId, idOrKey);
  return flag && !flag.deleted ? flag : undefined;
}

/**
 * `GET /api/projects/:project_id/feature_flags/:id_or_key/remote_config` (posthog-node's
 * `getRemoteConfigPayload`): the `"true"` payload of a remote configuration flag, as stored (JSON
 * text, which the SDK parses), or null. 404 with no body for another flag or none, as PostHog.
 */
export const flagRemoteConfig = privateRoute(async ({ singleTable, event, caller }) => {
  const flag = await flagOf(
    singleTable,
    await projectIdOf(singleTable, caller, event),
    event.pathParameters?.id ?? '',
  );
  if (!flag?.is_remote_configuration) return { statusCode: 404, headers: {}, body: '' };
  return json(200, flag.filters.payloads?.true ?? null);
});
