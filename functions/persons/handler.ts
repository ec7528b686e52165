import { bindOperations } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { findGroup, listGroups, listGroupTypes } from './groups';
import { listPersons } from './list';
import { retrievePerson } from './retrieve';

/** Persons and groups of a project (PostHog's PersonViewSet and group viewsets, read only). */
export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  jsonBody: false,
  routes: bindOperations('persons', {
    persons_list: listPersons,
    persons_retrieve: retrievePerson,
    groups_list: listGroups,
    groups_find_retrieve: findGroup,
    groups_types_list: listGroupTypes,
  }),
});
