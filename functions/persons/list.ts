import { findPersonsByEmails } from '../shared/db/person-emails';
import { getPersonByDistinctId } from '../shared/db/persons';
import type { Person } from '../shared/domain/persons';
import { personListingPartitions, readListingPage } from '../shared/db/person-listing';
import { matchesPersonQuery } from '../shared/domain/person-filters';
import { requestUrl } from '../shared/http/pagination';
import { projectRoute } from '../shared/http/private-route';
import type { HttpEvent } from '../shared/http/types';
import { json } from '../shared/http/responses';
import type { PersonsPage } from './page';
import { encodeCursor, readPersonsPage } from './page';
import type { PersonsRequest } from './query';
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

/** The persons a direct lookup found that the request's other filters keep, newest first. */
const matching = (persons: readonly Person[], request: PersonsRequest): Person[] => {
  const now = new Date();
  return persons
    .filter((person) => matchesPersonQuery(person, request.query, now))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.uuid.localeCompare(b.uuid))
    .slice(0, request.limit);
};

/**
 * `GET /api/projects/:project_id/persons/`: the project's persons, newest first, by cursor
 * (persons/page.ts); `distinct_id` finds one person directly, `email` its persons through the email
 * index (db/person-emails.ts); `search` and `properties` filter.
 */
export const listPersons = projectRoute(async ({ singleTable, event, project }) => {
  const request = parsePersonsRequest(event);
  if (request.distinctId !== undefined) {
    const person = await getPersonByDistinctId(singleTable, project.id, request.distinctId);
    return json(200, personsEnvelope(event, { persons: matching(person ? [person] : [], request) }));
  }
  if (request.email !== undefined) {
    const persons = await findPersonsByEmails(singleTable, project.id, [request.email]);
    return json(200, personsEnvelope(event, { persons: matching(persons, request) }));
  }
  const page = await readPersonsPage({
    tableName: singleTable,
    projectId: project.id,
    listing: (read) => readListingPage(singleTable, personListingPartitions(project.id), read),
    limit: request.limit,
    query: request.query,
    cursor: request.cursor,
  });
  return json(200, personsEnvelope(event, page));
});
