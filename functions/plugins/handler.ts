import { routeMap } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createHttpHandler } from '../shared/http/handler';
import { listPluginsRoute } from './list';

/** The plugin catalogue of an organization (PostHog's PluginViewSet, read only: nothing is installed). */
export const handler = createHttpHandler({
  config: privateApiConfig(),
  routes: routeMap('plugins', { 'GET /api/organizations/{organization_id}/plugins/': listPluginsRoute }),
});
