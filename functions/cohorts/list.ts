import { listCohorts } from '../shared/db/cohorts';
import { paginated, pageOf, slicePage } from '../shared/http/pagination';
import { projectRoute } from '../shared/http/private-route';
import { queryParam } from '../shared/http/request';
import { json } from '../shared/http/responses';
import { serializeCohort } from './serialize';

/**
 * `GET /api/projects/:project_id/cohorts/`: live cohorts, newest first, `search` on the name (case
 * insensitive); limit/offset envelope. A project's cohorts are one Query of its partition.
 */
export const listCohortsRoute = projectRoute(async ({ singleTable, event, project }) => {
  const page = pageOf(event);
  const search = queryParam(event, 'search')?.trim().toLowerCase().slice(0, 400);
  const all = (await listCohorts(singleTable, project.id))
    .filter((cohort) => !cohort.deleted)
    .filter((cohort) => !search || (cohort.name ?? '').toLowerCase().includes(search))
    .sort((a, b) => (a.created_at === b.created_at ? b.id - a.id : a.created_at < b.created_at ? 1 : -1));
  return json(
    200,
    paginated(
      event,
      page,
      all.length,
      slicePage(all, page).map((cohort) => serializeCohort(cohort)),
    ),
  );
});
