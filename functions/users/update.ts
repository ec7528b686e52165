import type { User } from '../shared/db/users';
import { getMembership } from '../shared/db/memberships';
import { updateUser } from '../shared/db/users';
import { getProject } from '../shared/db/projects';
import { NotFoundError, ValidationError } from '../shared/http/errors';
import { parseBody, privateRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { meUpdateSchema } from '../shared/schemas/user';
import { userOfPath } from './lookup';
import { describeUser } from './me';

/** PostHog's answer to a `set_current_team` the user cannot access: as if it did not exist. */
async function projectToSwitchTo(singleTable: string, userId: number, projectId: number) {
  const project = await getProject(singleTable, projectId);
  const membership = project ? await getMembership(singleTable, userId, project.organization) : undefined;
  if (!project || !membership)
    throw new ValidationError(
      'does_not_exist',
      `Object with id=${projectId} does not exist.`,
      'set_current_team',
    );
  return project;
}

/** `PATCH /api/users/@me/`: the caller's own name and current project. */
export const patchUser = privateRoute(async ({ singleTable, event, caller }) => {
  const user = userOfPath(event, caller.user);
  const body = parseBody(event, meUpdateSchema);
  const changes: Partial<Pick<User, 'first_name' | 'current_organization_id' | 'current_project_id'>> = {
    first_name: body.first_name,
  };
  if (body.set_current_team !== undefined) {
    const project = await projectToSwitchTo(singleTable, user.id, body.set_current_team);
    changes.current_project_id = project.id;
    changes.current_organization_id = project.organization;
  }
  const updated = await updateUser(singleTable, user.id, changes);
  if (!updated) throw new NotFoundError();
  return json(200, await describeUser(singleTable, updated));
});
