import { routeMap } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { createFlag } from './create';
import { destroyFlag } from './destroy';
import { listFlags } from './list';
import { flagRemoteConfig } from './remote-config';
import { retrieveFlag } from './retrieve';
import { patchFlag } from './update';

const config = privateApiConfig();

/** Flag management (PostHog's FeatureFlagViewSet). */
export const handler = createPrivateHttpHandler({
  config,
  jsonBody: true,
  routes: routeMap('feature_flags', {
    'GET /api/projects/{project_id}/feature_flags/': listFlags,
    'POST /api/projects/{project_id}/feature_flags/': createFlag,
    'GET /api/projects/{project_id}/feature_flags/{id}/': retrieveFlag,
    'PATCH /api/projects/{project_id}/feature_flags/{id}/': patchFlag,
    'DELETE /api/projects/{project_id}/feature_flags/{id}/': destroyFlag,
    'GET /api/projects/{project_id}/feature_flags/{id}/remote_config/': flagRemoteConfig,
  }),
});
