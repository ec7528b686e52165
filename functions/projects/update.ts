import { updateProject } from '../shared/db/projects';
import { NotFoundError } from '../shared/http/errors';
import { parseBody, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { projectWriteSchema } from '../shared/schemas/project';
import { serializeProject } from '../shared/serializers/project';

/**
 * `PATCH /api/projects/:project_id/`: a partial update of the writable fields (read-only and unknown
 * fields are ignored); any member of the organization may change its projects' settings.
 */
export const patchProject = projectRoute(async ({ singleTable, event, project, membership }) => {
  const changes = parseBody(event, projectWriteSchema);
  const updated = await updateProject(singleTable, project, changes);
  if (!updated) throw new NotFoundError('Project not found.');
  return json(200, serializeProject(updated, membership.level));
});
