import { validate as isUuid } from 'uuid';
import type { EventsApiConfig } from '../shared/config';
import { getEvent } from '../shared/db/events';
import { getPersonByDistinctId } from '../shared/db/persons';
import { NotFoundError, ValidationError } from '../shared/http/errors';
import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { csvResponse } from '../shared/http/csv';
import { eventsCsv, serializeEvent } from './serialize';

/**
 * `GET /api/projects/:project_id/events/:id/`: one event by uuid (PostHog's `posthog/api/event.py`): a malformed uuid
 * is 400 `Invalid UUID`, an unknown one (or another project's) 404.
 */
export const retrieveEventRoute = projectRoute<EventsApiConfig>(
  async ({ singleTable, eventsTable, event, project }) => {
    const id = event.pathParameters?.event_id ?? '';
    if (!isUuid(id)) throw new ValidationError('invalid', 'Invalid UUID');
    const stored = await getEvent(eventsTable, project.id, id.toLowerCase());
    if (!stored) throw new NotFoundError(`No events exist for event UUID ${id}`);
    const person = await getPersonByDistinctId(singleTable, project.id, stored.distinctId);
    if (event.queryStringParameters?.format === 'csv') {
      return csvResponse(
        eventsCsv([stored], () => person),
        `event-${stored.uuid}.csv`,
      );
    }
    return json(200, serializeEvent(stored, person));
  },
);
