import type { User } from '../shared/db/users';
import { listMemberships } from '../shared/db/memberships';
import { getOrganization } from '../shared/db/organizations';
import { listProjectsOfOrganization } from '../shared/db/projects';
import type { MeResponse, OrganizationBasicResponse } from '../shared/schemas/user';
import { serializeOrganization } from '../shared/serializers/organization';
import { serializeProjectBasic } from '../shared/serializers/project';

/**
 * The current user in PostHog's shape (`posthog/api/user.py`): the user's own fields, `team` (the current
 * project), `organization` (the current one, with its projects) and `organizations` (every one the
 * user belongs to). Fields Flock has no notion of (email verification, passwords, staff,
 * impersonation, notification settings) carry PostHog's defaults for a plain user.
 */
export async function describeUser(tableName: string, user: User): Promise<MeResponse> {
  const memberships = await listMemberships(tableName, user.id);
  const organizations = (
    await Promise.all(memberships.map((membership) => getOrganization(tableName, membership.organization_id)))
  ).flatMap((organization) => (organization ? [organization] : []));
  const levelIn = (organizationId: string) =>
    memberships.find((membership) => membership.organization_id === organizationId)?.level ?? null;

  const current = organizations.find((organization) => organization.id === user.current_organization_id);
  const currentLevel = current ? levelIn(current.id) : null;
  const projects = current ? await listProjectsOfOrganization(tableName, current.id) : [];
  const team = projects.find((project) => project.id === user.current_project_id);

  return {
    id: user.id,
    date_joined: user.date_joined,
    uuid: user.uuid,
    distinct_id: user.distinct_id,
    first_name: user.first_name,
    email: user.email,
    pending_email: null,
    email_opt_in: false,
    is_email_verified: null,
    notification_settings: { plugin_disabled: true },
    anonymize_data: false,
    toolbar_mode: 'toolbar',
    has_password: false,
    is_staff: false,
    is_impersonated: false,
    team: team ? serializeProjectBasic(team, currentLevel) : null,
    organization: current ? serializeOrganization(current, currentLevel, projects) : null,
    organizations: organizations.map((organization): OrganizationBasicResponse => ({
      id: organization.id,
      name: organization.name,
      slug: organization.slug,
      membership_level: levelIn(organization.id),
    })),
    events_column_config: { active: 'DEFAULT' },
  };
}
