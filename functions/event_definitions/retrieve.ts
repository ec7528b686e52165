import { getUsers } from '../shared/db/users';
import { getEventVolume30Day } from '../shared/db/definitions';
import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { definitionOfPath } from './lookup';
import { serializeEventDefinition, userIdsOf } from './serialize';

/** `GET /api/projects/:project_id/event_definitions/:id/`: one definition, by its uuid. */
export const retrieveDefinition = projectRoute(async ({ mainTable, event, project }) => {
  const item = await definitionOfPath(mainTable, project.id, event.pathParameters?.id);
  const [volume, users] = await Promise.all([
    getEventVolume30Day(mainTable, project.id, item.name, new Date()),
    getUsers(mainTable, userIdsOf(item)),
  ]);
  return json(200, serializeEventDefinition(item, volume, users));
});
