import type { Membership } from '../shared/db/memberships';
import { getMembership, listMemberships } from '../shared/db/memberships';
import type { Organization } from '../shared/db/organizations';
import { getOrganization } from '../shared/db/organizations';
import { listProjectsOfOrganization } from '../shared/db/projects';
import { NotFoundError } from '../shared/http/errors';
import { paginated, pageOf, slicePage } from '../shared/http/pagination';
import type { PrivateRequest } from '../shared/http/private-route';
import { privateRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { serializeOrganization } from '../shared/serializers/organization';
import { serializeProjectBasic } from '../shared/serializers/project';

/**
 * PostHog's organization endpoints (`posthog/api/organization.py`, the projects nested under them),
 * as PostHog's own tools call them. A caller sees the organizations they are a member of and nothing
 * else: another organization is a 404, as PostHog's queryset (the user's organizations) answers it.
 */

const organizationId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The organization the path names (`@current`: the caller's current one) and the caller's membership of it. */
async function organizationOfPath({
  singleTable,
  event,
  caller,
}: PrivateRequest): Promise<{ organization: Organization; membership: Membership }> {
  const raw = event.pathParameters?.organization_id ?? '';
  const id = raw === '@current' ? caller.user.current_organization_id : raw;
  if (!organizationId.test(id)) throw new NotFoundError();
  const membership = await getMembership(singleTable, caller.user.id, id);
  const organization = membership && (await getOrganization(singleTable, id));
  if (!membership || !organization) throw new NotFoundError();
  return { organization, membership };
}

/** `GET /api/organizations/`: the caller's organizations, by name, in PostHog's list envelope. */
export const listOrganizations = privateRoute(async ({ singleTable, event, caller }) => {
  const page = pageOf(event);
  const memberships = await listMemberships(singleTable, caller.user.id);
  const organizations = (
    await Promise.all(
      memberships.map(async (membership) => {
        const organization = await getOrganization(singleTable, membership.organization_id);
        return organization ? [{ organization, membership }] : [];
      }),
    )
  )
    .flat()
    .sort(
      (a, b) =>
        a.organization.name.localeCompare(b.organization.name) ||
        a.organization.id.localeCompare(b.organization.id),
    );
  const results = await Promise.all(
    slicePage(organizations, page).map(async ({ organization, membership }) =>
      serializeOrganization(
        organization,
        membership.level,
        await listProjectsOfOrganization(singleTable, organization.id),
      ),
    ),
  );
  return json(200, paginated(event, page, organizations.length, results));
});

/** `GET /api/organizations/:organization_id/`: one of the caller's organizations, with its projects. */
export const retrieveOrganization = privateRoute(async (context) => {
  const { organization, membership } = await organizationOfPath(context);
  const projects = await listProjectsOfOrganization(context.singleTable, organization.id);
  return json(200, serializeOrganization(organization, membership.level, projects));
});

/** `GET /api/organizations/:organization_id/projects/`: its projects, by id, in the reduced shape of `GET /api/projects/`. */
export const listOrganizationProjects = privateRoute(async (context) => {
  const { organization, membership } = await organizationOfPath(context);
  const page = pageOf(context.event);
  const projects = await listProjectsOfOrganization(context.singleTable, organization.id);
  const results = slicePage(projects, page).map((project) =>
    serializeProjectBasic(project, membership.level),
  );
  return json(200, paginated(context.event, page, projects.length, results));
});
