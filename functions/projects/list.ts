import { getMembership } from '../shared/db/memberships';
import { listProjectsOfOrganization } from '../shared/db/projects';
import { paginated, pageOf, slicePage } from '../shared/http/pagination';
import { privateRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { serializeProjectBasic } from '../shared/serializers/project';

/** `GET /api/projects/`: the projects of the caller's current organization, by id, reduced shape. */
export const listProjects = privateRoute(async ({ singleTable, event, caller }) => {
  const page = pageOf(event);
  const organizationId = caller.user.current_organization_id;
  const [projects, membership] = await Promise.all([
    listProjectsOfOrganization(singleTable, organizationId),
    getMembership(singleTable, caller.user.id, organizationId),
  ]);
  // A user who left their current organization sees none of its projects.
  const visible = membership ? projects : [];
  const results = slicePage(visible, page).map((project) =>
    serializeProjectBasic(project, membership?.level ?? null),
  );
  return json(200, paginated(event, page, visible.length, results));
});
