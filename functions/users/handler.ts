import { bindOperations } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { retrieveUser } from './retrieve';
import { patchUser } from './update';

export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  jsonBody: true,
  routes: bindOperations('users', { users_retrieve: retrieveUser, users_partial_update: patchUser }),
});
