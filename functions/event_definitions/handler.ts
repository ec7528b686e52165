import { routeMap } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { listDefinitions } from './list';
import { retrieveDefinition } from './retrieve';
import { patchDefinition } from './update';

export const handler = createPrivateHttpHandler({
  config: privateApiConfig(),
  jsonBody: true,
  routes: routeMap('event_definitions', {
    'GET /api/projects/{project_id}/event_definitions/': listDefinitions,
    'GET /api/projects/{project_id}/event_definitions/{id}/': retrieveDefinition,
    'PATCH /api/projects/{project_id}/event_definitions/{id}/': patchDefinition,
  }),
});
