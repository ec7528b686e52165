import { getMembership } from '../shared/db/memberships';
import { getOrganization } from '../shared/db/organizations';
import { PLUGIN_CATALOGUE } from '../shared/domain/plugins/catalogue';
import { NotFoundError, PermissionDeniedError } from '../shared/http/errors';
import { paginated, pageOf, slicePage } from '../shared/http/pagination';
import { privateRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { serializePlugin } from '../shared/serializers/plugin';

const organizationId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `GET /api/organizations/:organization_id/plugins/` (`@current`: the caller's current organization):
 * the plugins the organization can configure, which in Flock is the whole built-in catalogue, by id,
 * in PostHog's list envelope. The caller must be a member: 403 for another organization, 404 for one
 * that does not exist.
 */
export const listPluginsRoute = privateRoute(async ({ singleTable, event, caller }) => {
  const raw = event.pathParameters?.organization_id ?? '';
  const orgId = raw === '@current' ? caller.user.current_organization_id : raw;
  if (!organizationId.test(orgId)) throw new NotFoundError();
  if (!(await getMembership(singleTable, caller.user.id, orgId))) {
    if (await getOrganization(singleTable, orgId)) throw new PermissionDeniedError();
    throw new NotFoundError();
  }
  const page = pageOf(event);
  const results = slicePage(PLUGIN_CATALOGUE, page).map(serializePlugin);
  return json(200, paginated(event, page, PLUGIN_CATALOGUE.length, results));
});
