import { createHttpHandler } from '../shared/http/handler';
import { listEvents } from './list';

export const handler = createHttpHandler({
  routes: {
    'GET /api/projects/{project_id}/events/': listEvents,
    'GET /api/projects/{project_id}/events': listEvents,
  },
});
