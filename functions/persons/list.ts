import { getPersonByDistinctId } from '../shared/db/persons';
import { personListingPartitions } from '../shared/db/person-listing';
import { matchesPersonQuery } from '../shared/domain/person-filters';
import { requestUrl } from '../shared/http/pagination';
import { projectRoute } from '../shared/http/private-route';
import type { HttpEvent } from '../shared/http/types';
import { json } from '../shared/http/responses';
import type { PersonsPage } from './page';
import { encodeCursor, readPersonsPage } from './page';
import { parsePersonsRequest } from './query';
import { serializePerson } from './serialize';

/** `{results, next, previous}` of a page, links being this request with another cursor. */
export function personsEnvelope(event: HttpEvent, page: PersonsPage, maxDistinctIds?: number) {
  const link = (cursor: PersonsPage['next']) =>
    cursor ? requestUrl(event, { cursor: encodeCursor(cursor) }) : null;
  return {
    results: page.persons.map((person) => serializePerson(person, maxDistinctIds)),
    next: link(page.next),
    previous: link(page.previous),
  };
}

/**
 * `GET /api/projects/:project_id/persons/`: the project's persons, newest first, by cursor
 * (persons/page.ts); `distinct_id` finds one person directly; `search` and `properties` filter.
 */
export const listPersons = projectRoute(async ({ singleTable, event, project }) => {
  const request = parsePersonsRequest(event);
  if (request.distinctId !== undefined) {
    const person = await getPersonByDistinctId(singleTable, project.id, request.distinctId);
    const persons = person && matchesPersonQuery(person, request.query, new Date()) ? [person] : [];
    return json(200, personsEnvelope(event, { persons }));
  }
  const page = await readPersonsPage({
    tableName: singleTable,
    projectId: project.id,
    partitions: personListingPartitions(project.id),
    limit: request.limit,
    query: request.query,
    cursor: request.cursor,
  });
  return json(200, personsEnvelope(event, page));
});
