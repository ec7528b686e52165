import { listFeatureFlags } from '../shared/db/feature-flags';
import { paginated, pageOf, slicePage } from '../shared/http/pagination';
import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { serializeFeatureFlag } from './serialize';

/** `GET /api/projects/:project_id/feature_flags/`: the project's flags not deleted, newest first. */
export const listFlags = projectRoute(async ({ singleTable, event, project }) => {
  const page = pageOf(event);
  const live = (await listFeatureFlags(singleTable, project.id, true))
    .filter((flag) => !flag.deleted)
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id);
  return json(200, paginated(event, page, live.length, slicePage(live, page).map(serializeFeatureFlag)));
});
