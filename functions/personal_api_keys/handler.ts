import { routeMap } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { createKey } from './create';
import { destroyKey } from './destroy';
import { listKeys } from './list';
import { retrieveKey } from './retrieve';

export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  jsonBody: true,
  routes: routeMap('personal_api_keys', {
    'GET /api/personal_api_keys/': listKeys,
    'POST /api/personal_api_keys/': createKey,
    'GET /api/personal_api_keys/{id}/': retrieveKey,
    'DELETE /api/personal_api_keys/{id}/': destroyKey,
  }),
});
