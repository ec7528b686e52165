import { getUsers } from '../shared/db/users';
import { getEventVolumes30Day, listEventDefinitions } from '../shared/db/definitions';
import { paginated, pageOf, slicePage } from '../shared/http/pagination';
import { parseQuery, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { eventDefinitionQuerySchema } from '../shared/schemas/event-definition';
import { matchesFilters } from './edits';
import { serializeEventDefinition, userIdsOf } from './serialize';

/**
 * `GET /api/projects/:project_id/event_definitions/`: the project's definitions ordered by name,
 * optionally filtered (`search`, `event_type`). `volume_30_day` is summed from the daily counters of
 * the page's names only (a Query each), so a page costs the same however many definitions exist.
 */
export const listDefinitions = projectRoute(async ({ singleTable, event, project }) => {
  const page = pageOf(event);
  const filters = parseQuery(event, eventDefinitionQuerySchema);
  const all = (await listEventDefinitions(singleTable, project.id))
    .filter((item) => matchesFilters(item.name, filters))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const items = slicePage(all, page);
  const [volumes, users] = await Promise.all([
    getEventVolumes30Day(
      singleTable,
      project.id,
      items.map((item) => item.name),
      new Date(),
    ),
    getUsers(singleTable, items.flatMap(userIdsOf)),
  ]);
  const results = items.map((item) => serializeEventDefinition(item, volumes.get(item.name) ?? 0, users));
  return json(200, paginated(event, page, all.length, results));
});
