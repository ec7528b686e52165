import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { serializeConfig } from './serialize';
import { pluginConfigOfPath } from './load';

/** `GET /api/projects/:project_id/plugin_configs/:id/`: with `plugin_info`, as PostHog's retrieve. */
export const retrievePluginConfig = projectRoute(async ({ mainTable, event, project }) =>
  json(200, await serializeConfig(mainTable, await pluginConfigOfPath(mainTable, project.id, event))),
);
