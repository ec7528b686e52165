import { personsEnvelope } from '../persons/list';
import { readPersonsPage } from '../persons/page';
import { parsePersonsRequest } from '../persons/query';
import { serializePerson } from '../persons/serialize';
import { cohortMemberPartitions, readMembersPage } from '../shared/db/cohort-members';
import { csvResponse, toCsv } from '../shared/http/csv';
import { ValidationError } from '../shared/http/errors';
import { projectRoute } from '../shared/http/private-route';
import { queryParam } from '../shared/http/request';
import { json } from '../shared/http/responses';
import { cohortOfPath } from './load';

/** PostHog's cohort persons page size, and its cap on distinct ids per person there. */
const defaultLimit = 100;
const distinctIdsShown = 10;

/** Columns PostHog drops from the cohort CSV (email is lifted out of properties instead). */
const csvOmitted = ['uuid', 'type', 'is_identified'];

/**
 * `GET /api/projects/:project_id/cohorts/:id/persons/`: the cohort's stored members, `{results, next,
 * previous}` (no count, as PostHog), by cursor over the sharded membership: a page costs the same at
 * a million members as at a thousand. `?format=csv` gives the same page flattened, with PostHog's
 * columns (`email` lifted out of properties, distinct ids as `distinct_ids.0…9`, header sorted).
 */
export const cohortPersons = projectRoute(async ({ singleTable, event, project }) => {
  const cohort = await cohortOfPath(singleTable, project.id, event);
  const format = queryParam(event, 'format') ?? 'json';
  if (format !== 'json' && format !== 'csv')
    throw new ValidationError('invalid_input', 'format must be json or csv.', 'format');
  const request = parsePersonsRequest(event, defaultLimit);
  const page = await readPersonsPage({
    tableName: singleTable,
    projectId: project.id,
    listing: (read) => readMembersPage(singleTable, cohortMemberPartitions(project.id, cohort.id), read),
    limit: request.limit,
    query: request.query,
    cursor: request.cursor,
  });
  if (format === 'json') return json(200, personsEnvelope(event, page, distinctIdsShown));
  const rows = page.persons.map((person) => {
    const { properties, ...rest } = serializePerson(person, distinctIdsShown);
    const { email, ...otherProperties } = properties;
    return { ...rest, email: email ?? null, properties: otherProperties };
  });
  const csv = rows.length === 0 ? { body: '', omittedColumns: 0 } : toCsv(rows, { omit: csvOmitted });
  return csvResponse(csv, `cohort-${cohort.id}-persons.csv`);
});
