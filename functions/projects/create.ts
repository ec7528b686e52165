import { requireAdmin } from '../shared/auth/private-api';
import { getMembership } from '../shared/db/memberships';
import { updateUser } from '../shared/db/users';
import { createProject } from '../shared/db/projects';
import { parseBody, privateRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { projectWriteSchema } from '../shared/schemas/project';
import { serializeProject } from '../shared/serializers/project';

/** PostHog's name for a project created without one. */
const defaultProjectName = 'Default Project';

/**
 * `POST /api/projects/`: a project in the caller's current organization (admins and owners only, as
 * PostHog), with a server-generated `phc_` token and PostHog's defaults for what the body leaves
 * out. Like PostHog, the new project becomes the caller's current project. 201 with the full shape.
 */
export const createProjectRoute = privateRoute(async ({ singleTable, event, caller }) => {
  const organizationId = caller.user.current_organization_id;
  const membership = await getMembership(singleTable, caller.user.id, organizationId);
  requireAdmin(membership, 'Your organization access level is insufficient.');
  const { name, ...settings } = parseBody(event, projectWriteSchema);
  const project = await createProject(singleTable, {
    organizationId,
    name: name ?? defaultProjectName,
    settings,
  });
  await updateUser(singleTable, caller.user.id, { current_project_id: project.id });
  return json(201, serializeProject(project, membership?.level ?? null));
});
