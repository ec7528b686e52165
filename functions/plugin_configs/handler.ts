import { bindOperations } from '../routes';
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
  routes: bindOperations('plugin_configs', {
    plugin_configs_list: listPluginConfigsRoute,
    plugin_configs_create: createPluginConfigRoute,
    plugin_configs_rearrange_partial_update: rearrangePluginConfigs,
    plugin_configs_retrieve: retrievePluginConfig,
    plugin_configs_partial_update: patchPluginConfig,
    plugin_configs_destroy: destroyPluginConfig,
    plugin_configs_frontend_retrieve: pluginConfigFrontend,
    plugin_configs_job_create: runPluginJob,
    plugin_configs_logs_list: pluginConfigLogs,
  }),
});
