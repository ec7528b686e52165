import { bindOperations } from '../routes';
import { envNames, loadConfig, singleTableEnv } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import type { FlagsSettings } from './decide';
import { configOnly, decide, flags, preflight } from './decide';
import { localEvaluation } from './local-evaluation';
import { remoteConfigJs, remoteConfigJson } from './remote-config';

const config = loadConfig(singleTableEnv);
const settings: FlagsSettings = { tableName: config[envNames.singleTable] };

/** The public flag endpoints, CORS on every response (posthog-js calls them from any origin). */
export const handler = createPrivateHttpHandler({
  cors: true,
  routes: bindOperations('flags', {
    decide_create: decide(settings),
    flags_create: flags(settings),
    config_only: configOnly,
    preflight,
    local_evaluation: localEvaluation(settings.tableName),
    remote_config_retrieve: remoteConfigJson(settings),
    remote_config_js_retrieve: remoteConfigJs(settings),
  }),
});
