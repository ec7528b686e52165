import { bindOperations } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { listPluginsRoute } from './list';

/** The plugin catalogue of an organization (PostHog's PluginViewSet, read only: nothing is installed). */
export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  routes: bindOperations('plugins', { plugins_list: listPluginsRoute }),
});
