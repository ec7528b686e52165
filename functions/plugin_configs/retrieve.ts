import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { serializePluginConfig } from '../shared/serializers/plugin';
import { pluginConfigOfPath } from './load';

/** `GET /api/projects/:project_id/plugin_configs/:id/`: with `plugin_info`, as PostHog's retrieve. */
export const retrievePluginConfig = projectRoute(async ({ mainTable, event, project }) =>
  json(200, serializePluginConfig(await pluginConfigOfPath(mainTable, project.id, event), true)),
);
