import { routeMap } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { createCohortRoute } from './create';
import { destroyCohort } from './destroy';
import { listCohortsRoute } from './list';
import { cohortPersons } from './persons';
import { retrieveCohort } from './retrieve';
import { patchCohort } from './update';

/** Cohorts of a project (PostHog's CohortViewSet): JSON, or multipart with a CSV for static cohorts. */
export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  jsonBody: true,
  routes: routeMap('cohorts', {
    'GET /api/projects/{project_id}/cohorts/': listCohortsRoute,
    'POST /api/projects/{project_id}/cohorts/': createCohortRoute,
    'GET /api/projects/{project_id}/cohorts/{id}/': retrieveCohort,
    'PATCH /api/projects/{project_id}/cohorts/{id}/': patchCohort,
    'DELETE /api/projects/{project_id}/cohorts/{id}/': destroyCohort,
    'GET /api/projects/{project_id}/cohorts/{id}/persons/': cohortPersons,
  }),
});
