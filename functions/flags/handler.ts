import { routeMap } from '../routes';
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
  routes: routeMap('flags', {
    'POST /decide/': decide(settings),
    'GET /decide/': configOnly,
    'OPTIONS /decide/': preflight,
    'POST /flags/': flags(settings),
    'GET /flags/': configOnly,
    'OPTIONS /flags/': preflight,
    'GET /flags/definitions/': localEvaluation(settings.tableName),
    'GET /api/feature_flag/local_evaluation/': localEvaluation(settings.tableName),
    'GET /array/{token}/config/': remoteConfigJson(settings),
    'OPTIONS /array/{token}/config/': preflight,
    'GET /array/{token}/config.js/': remoteConfigJs(settings),
    'OPTIONS /array/{token}/config.js/': preflight,
  }),
});
