import { routeMap } from '../routes';
import { createHttpHandler } from '../shared/http/handler';
import { listEvents } from './list';

export const handler = createHttpHandler({
  routes: routeMap('events', {
    'GET /api/projects/{project_id}/events/': listEvents,
  }),
});
