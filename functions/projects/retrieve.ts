import { projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { serializeProject } from '../shared/serializers/project';

/** `GET /api/projects/:project_id/` (`@current` too): the full shape. */
export const retrieveProject = projectRoute(async ({ project, membership }) =>
  json(200, serializeProject(project, membership.level)),
);
