import { bindOperations } from '../routes';
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
  routes: bindOperations('feature_flags', {
    feature_flags_list: listFlags,
    feature_flags_create: createFlag,
    feature_flags_retrieve: retrieveFlag,
    feature_flags_partial_update: patchFlag,
    feature_flags_destroy: destroyFlag,
    feature_flags_remote_config: flagRemoteConfig,
  }),
});
