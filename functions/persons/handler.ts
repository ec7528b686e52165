import { bindOperations } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { listPersons } from './list';
import { retrievePerson } from './retrieve';

/** Persons of a project (PostHog's PersonViewSet, read only). */
export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  jsonBody: false,
  routes: bindOperations('persons', {
    persons_list: listPersons,
    persons_retrieve: retrievePerson,
  }),
});
