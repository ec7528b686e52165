import { bindOperations } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { listDefinitions } from './list';
import { listPropertyDefinitionsRoute, retrievePropertyDefinitionRoute } from './property-definitions';
import { retrieveDefinition } from './retrieve';
import { patchDefinition } from './update';

export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  jsonBody: true,
  routes: bindOperations('event_definitions', {
    event_definitions_list: listDefinitions,
    event_definitions_retrieve: retrieveDefinition,
    event_definitions_partial_update: patchDefinition,
    property_definitions_list: listPropertyDefinitionsRoute,
    property_definitions_retrieve: retrievePropertyDefinitionRoute,
  }),
});
