import { createFeatureFlag } from '../shared/db/feature-flags';
import { parseBody, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { userBasic } from '../shared/schemas/common';
import { checkFlagCohorts } from './cohorts';
import { everyoneFilters, validateFilters } from './filters';
import { checkKeyPattern, withUniqueKey } from './keys';
import { flagWriteSchema } from './schema';
import { serializeFeatureFlag } from './serialize';

/**
 * `POST /api/projects/:project_id/feature_flags/`: a flag with the next integer id, version 1, made by
 * the caller; 201 with PostHog's shape. A key another live flag holds is 400 `unique`; a flag
 * without filters is PostHog's legacy default (everyone).
 */
export const createFlag = projectRoute(async ({ singleTable, event, caller, project }) => {
  const body = parseBody(event, flagWriteSchema);
  checkKeyPattern(body.key);
  const filters = body.filters === undefined ? everyoneFilters : validateFilters(body.filters, true);
  await checkFlagCohorts(singleTable, project.id, filters);
  const flag = await withUniqueKey(() =>
    createFeatureFlag(singleTable, project.id, {
      key: body.key,
      name: body.name ?? '',
      filters,
      active: body.active ?? true,
      deleted: body.deleted ?? false,
      ensure_experience_continuity: body.ensure_experience_continuity ?? false,
      is_remote_configuration: body.is_remote_configuration ?? false,
      rollout_percentage: null,
      created_by: userBasic(caller.user),
    }),
  );
  return json(201, serializeFeatureFlag(flag));
});
