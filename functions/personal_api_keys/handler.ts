import { bindOperations } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { createKey } from './create';
import { destroyKey } from './destroy';
import { listKeys } from './list';
import { retrieveKey } from './retrieve';

export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  jsonBody: true,
  routes: bindOperations('personal_api_keys', {
    personal_api_keys_list: listKeys,
    personal_api_keys_create: createKey,
    personal_api_keys_retrieve: retrieveKey,
    personal_api_keys_destroy: destroyKey,
  }),
});
