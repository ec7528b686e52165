import { routeMap } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { retrieveUser } from './retrieve';
import { patchUser } from './update';

export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  jsonBody: true,
  routes: routeMap('users', {
    'GET /api/users/{user_uuid}/': retrieveUser,
    'PATCH /api/users/{user_uuid}/': patchUser,
    'GET /users/{user_uuid}/': retrieveUser,
    'PATCH /users/{user_uuid}/': patchUser,
  }),
});
