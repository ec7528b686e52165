import type { FeatureFlagRecord } from '../shared/db/feature-flags';
import { getFeatureFlag, replaceFeatureFlag } from '../shared/db/feature-flags';
import { HttpError, NotFoundError } from '../shared/http/errors';
import { parseBody, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { checkFlagCohorts } from './cohorts';
import { validateFilters } from './filters';
import { flagIdOf } from './ids';
import { checkKeyPattern, withUniqueKey } from './keys';
import type { FlagPatch } from './schema';
import { flagPatchSchema } from './schema';
import { serializeFeatureFlag } from './serialize';

/**
 * The flag after a PATCH (pure). Only the given fields change; `filters` without `groups` leaves the
 * filters as they are (PostHog's rule); every update bumps `version`.
 */
export function patchedFlag(current: FeatureFlagRecord, patch: FlagPatch, now: Date): FeatureFlagRecord {
  const filters =
    patch.filters === undefined || !('groups' in patch.filters)
      ? current.filters
      : validateFilters(patch.filters, false);
  return {
    ...current,
    key: patch.key ?? current.key,
    name: patch.name ?? current.name,
    filters,
    active: patch.active ?? current.active,
    deleted: patch.deleted ?? current.deleted,
    ensure_experience_continuity:
      patch.ensure_experience_continuity === undefined
        ? current.ensure_experience_continuity
        : patch.ensure_experience_continuity === true,
    is_remote_configuration: patch.is_remote_configuration ?? current.is_remote_configuration,
    updated_at: now.toISOString(),
    version: current.version + 1,
  };
}

const maxAttempts = 3;

/**
 * `PATCH /api/projects/:project_id/feature_flags/:id/`: a partial update, soft delete included
 * (`{"deleted": true}`). Written only over the version it was computed from; a concurrent update
 * makes it start again from the new version.
 */
export const patchFlag = projectRoute(async ({ singleTable, event, project }) => {
  const flagId = flagIdOf(event);
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const current = await getFeatureFlag(singleTable, project.id, flagId);
    if (!current) throw new NotFoundError();
    const patch = parseBody(event, flagPatchSchema);
    if (patch.key !== undefined) checkKeyPattern(patch.key);
    const next = patchedFlag(current, patch, new Date());
    // Checked whenever the flag's cohorts may start to count: new filters, or a flag made live again
    // (its cohorts may have changed while it was off).
    const revived = next.active && !next.deleted && (!current.active || current.deleted);
    if (next.filters !== current.filters || revived)
      await checkFlagCohorts(singleTable, project.id, next.filters);
    if (await withUniqueKey(() => replaceFeatureFlag(singleTable, next)))
      return json(200, serializeFeatureFlag(next));
  }
  throw new HttpError(
    409,
    'invalid_request',
    'conflict',
    'The flag was changed by another request. Please try again.',
  );
});
