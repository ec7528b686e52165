import { routeMap } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { createPluginConfigRoute } from './create';
import { destroyPluginConfig } from './destroy';
import { pluginConfigFrontend } from './frontend';
import { runPluginJob } from './job';
import { listPluginConfigsRoute } from './list';
import { pluginConfigLogs } from './logs';
import { rearrangePluginConfigs } from './rearrange';
import { retrievePluginConfig } from './retrieve';
import { patchPluginConfig } from './update';

/** Plugin configs of a project (PostHog's PluginConfigViewSet and its logs): JSON, or multipart. */
export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  jsonBody: true,
  routes: routeMap('plugin_configs', {
    'GET /api/projects/{project_id}/plugin_configs/': listPluginConfigsRoute,
    'POST /api/projects/{project_id}/plugin_configs/': createPluginConfigRoute,
    'PATCH /api/projects/{project_id}/plugin_configs/rearrange/': rearrangePluginConfigs,
    'GET /api/projects/{project_id}/plugin_configs/{id}/': retrievePluginConfig,
    'PATCH /api/projects/{project_id}/plugin_configs/{id}/': patchPluginConfig,
    'DELETE /api/projects/{project_id}/plugin_configs/{id}/': destroyPluginConfig,
    'GET /api/projects/{project_id}/plugin_configs/{id}/frontend/': pluginConfigFrontend,
    'POST /api/projects/{project_id}/plugin_configs/{id}/job/': runPluginJob,
    'GET /api/projects/{project_id}/plugin_configs/{id}/logs/': pluginConfigLogs,
  }),
});
