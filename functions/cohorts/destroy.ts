import { projectRoute } from '../shared/http/private-route';
import { cohortOfPath } from './load';

/**
 * `DELETE /api/projects/:project_id/cohorts/:id/`: refused with 405 and no body, as PostHog's
 * ForbidDestroyModel answers; a cohort is deleted with `PATCH {"deleted": true}` (404 first for a
 * cohort that does not exist).
 */
export const destroyCohort = projectRoute(async ({ singleTable, event, project }) => {
  await cohortOfPath(singleTable, project.id, event);
  return { statusCode: 405, headers: { Allow: 'GET, PATCH, HEAD, OPTIONS' }, body: '' };
});
