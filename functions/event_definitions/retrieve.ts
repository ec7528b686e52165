import { getUsers } from '../shared/db/users';
import { getEventVolume30Day } from '../shared/db/definitions';
import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { definitionOfPath } from './lookup';
import { serializeEventDefinition, userIdsOf } from './serialize';

/** `GET /api/projects/:project_id/event_definitions/:id/`: one definition, by its uuid. */
export const retrieveDefinition = projectRoute(async ({ singleTable, event, project }) => {
  const item = await definitionOfPath(singleTable, project.id, event.pathParameters?.id);
  const [volume, users] = await Promise.all([
    getEventVolume30Day(singleTable, project.id, item.name, new Date()),
    getUsers(singleTable, userIdsOf(item)),
  ]);
  return json(200, serializeEventDefinition(item, volume, users));
});
