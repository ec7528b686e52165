import { routeMap } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createHttpHandler } from '../shared/http/handler';
import { retrieveUser } from './retrieve';
import { patchUser } from './update';

export const handler = createHttpHandler({
  config: privateApiConfig(),
  jsonBody: true,
  routes: routeMap('users', {
    'GET /api/users/{user_uuid}/': retrieveUser,
    'PATCH /api/users/{user_uuid}/': patchUser,
    'GET /users/{user_uuid}/': retrieveUser,
    'PATCH /users/{user_uuid}/': patchUser,
  }),
});
