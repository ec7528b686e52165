import { listPluginConfigs } from '../shared/db/plugin-configs';
import { paginated, pageOf, slicePage } from '../shared/http/pagination';
import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { byRunOrder } from '../shared/serializers/plugin';
import { serializeConfigs } from './serialize';

/**
 * `GET /api/projects/:project_id/plugin_configs/`: the project's configs, disabled ones too, by
 * `order` then plugin id (PostHog's order), `plugin_info` null as in PostHog's list. One Query.
 */
export const listPluginConfigsRoute = projectRoute(async ({ singleTable, event, project }) => {
  const page = pageOf(event);
  const all = (await listPluginConfigs(singleTable, project.id)).sort(byRunOrder);
  const results = await serializeConfigs(singleTable, slicePage(all, page), false);
  return json(200, paginated(event, page, all.length, results));
});
