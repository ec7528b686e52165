import { bindOperations } from '../routes';
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
  routes: bindOperations('cohorts', {
    cohorts_list: listCohortsRoute,
    cohorts_create: createCohortRoute,
    cohorts_retrieve: retrieveCohort,
    cohorts_partial_update: patchCohort,
    cohorts_destroy: destroyCohort,
    cohorts_persons: cohortPersons,
  }),
});
