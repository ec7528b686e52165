import type { MembershipLevel } from '../db/memberships';
import type { Organization } from '../db/organizations';
import type { Project } from '../domain/project';
import type { OrganizationResponse } from '../schemas/user';
import { serializeProjectBasic } from './project';

/**
 * An organization in PostHog's shape (`posthog/api/organization.py` OrganizationSerializer), with its
 * projects as `teams`, seen by a member of `level`. Flock has no paid features or member e-mails, so
 * those fields carry PostHog's values for a self-hosted organization without them.
 */
export function serializeOrganization(
  organization: Organization,
  level: MembershipLevel | null,
  projects: readonly Project[],
): OrganizationResponse {
  return {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    created_at: organization.created_at,
    updated_at: organization.created_at,
    membership_level: level,
    teams: projects.map((project) => serializeProjectBasic(project, level)),
    available_features: [],
    is_member_join_email_enabled: true,
    metadata: {},
  };
}
