import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { cohortOfPath } from './load';
import { serializeCohort } from './serialize';

/** `GET /api/projects/:project_id/cohorts/:id/`: deleted cohorts too, as PostHog. */
export const retrieveCohort = projectRoute(async ({ singleTable, event, project }) =>
  json(200, serializeCohort(await cohortOfPath(singleTable, project.id, event))),
);
