import { requireAdmin } from '../shared/auth/private-api';
import { updateUser } from '../shared/db/users';
import { deleteProject, listProjectsOfOrganization } from '../shared/db/projects';
import { projectRoute } from '../shared/http/private-route';
import { noContent } from '../shared/http/responses';

/**
 * `DELETE /api/projects/:project_id/` (admins and owners): the token stops working and the project
 * and its data become unreachable (see `deleteProject`). 204. If it was the caller's current project,
 * another project of the organization (or none) becomes current.
 */
export const destroyProject = projectRoute(async ({ singleTable, caller, project, membership }) => {
  requireAdmin(membership, "You don't have sufficient permissions in the project.");
  await deleteProject(singleTable, project);
  if (caller.user.current_project_id === project.id) {
    const remaining = await listProjectsOfOrganization(singleTable, project.organization);
    const next = remaining.find((candidate) => candidate.id !== project.id);
    await updateUser(singleTable, caller.user.id, { current_project_id: next?.id ?? null });
  }
  return noContent();
});
