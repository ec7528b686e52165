import { routeMap } from '../routes';
import { eventsApiConfig } from '../shared/config';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { listEventsRoute } from './list';
import { retrieveEventRoute } from './retrieve';
import { propertyValuesRoute } from './values';

export const handler = createPrivateHttpHandler({
  config: eventsApiConfig(),
  routes: routeMap('events', {
    'GET /api/projects/{project_id}/events/': listEventsRoute,
    'GET /api/projects/{project_id}/events/values/': propertyValuesRoute,
    'GET /api/projects/{project_id}/events/{event_id}/': retrieveEventRoute,
  }),
});
