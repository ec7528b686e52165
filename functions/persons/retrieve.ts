import { getPerson } from '../shared/db/persons';
import { canonicalUuid } from '../shared/domain/uuid';
import { NotFoundError } from '../shared/http/errors';
import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { serializePerson } from './serialize';

/** `GET /api/projects/:project_id/persons/:uuid/`: a live person; a merged or unknown one is 404. */
export const retrievePerson = projectRoute(async ({ singleTable, event, project }) => {
  const uuid = (event.pathParameters?.uuid ?? '').toLowerCase();
  const person = canonicalUuid.test(uuid) ? await getPerson(singleTable, project.id, uuid) : undefined;
  if (!person) throw new NotFoundError();
  return json(200, serializePerson(person));
});
