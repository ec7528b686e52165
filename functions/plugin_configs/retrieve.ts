import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { serializeConfig } from './serialize';
import { pluginConfigOfPath } from './load';

/** `GET /api/projects/:project_id/plugin_configs/:id/`: with `plugin_info`, as PostHog's retrieve. */
export const retrievePluginConfig = projectRoute(async ({ singleTable, event, project }) =>
  json(200, await serializeConfig(singleTable, await pluginConfigOfPath(singleTable, project.id, event))),
);
