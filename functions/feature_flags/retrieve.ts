import { getFeatureFlag } from '../shared/db/feature-flags';
import { NotFoundError } from '../shared/http/errors';
import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { flagIdOf } from './ids';
import { serializeFeatureFlag } from './serialize';

/** `GET /api/projects/:project_id/feature_flags/:id/`: a flag of the project, soft-deleted ones too. */
export const retrieveFlag = projectRoute(async ({ singleTable, event, project }) => {
  const flag = await getFeatureFlag(singleTable, project.id, flagIdOf(event));
  if (!flag) throw new NotFoundError();
  return json(200, serializeFeatureFlag(flag));
});
