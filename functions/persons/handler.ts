import { routeMap } from '../routes';
import { privateApiConfig } from '../shared/config';
import { createHttpHandler } from '../shared/http/handler';
import { listPersons } from './list';
import { retrievePerson } from './retrieve';

/** Persons of a project (PostHog's PersonViewSet, read only). */
export const handler = createHttpHandler({
  config: privateApiConfig(),
  jsonBody: false,
  routes: routeMap('persons', {
    'GET /api/projects/{project_id}/persons/': listPersons,
    'GET /api/projects/{project_id}/persons/{uuid}/': retrievePerson,
  }),
});
