import * as z from 'zod';
import { dateTime, membershipLevelSchema } from './common';
import { projectBasicSchema } from './project';
import { components } from './registry';

/** The current user (`/api/users/@me/`, `posthog/api/user.py` 2022 plus `id`). */

/** OrganizationBasic: one entry of `organizations`. */
export const organizationBasicSchema = /* @__PURE__ */ z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    membership_level: membershipLevelSchema.nullable(),
  })
  .register(components, { id: 'OrganizationBasic' });
export type OrganizationBasicResponse = z.infer<typeof organizationBasicSchema>;

/** The current organization, with its projects (`teams`). */
export const organizationSchema = /* @__PURE__ */ z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    created_at: dateTime(),
    updated_at: dateTime(),
    membership_level: membershipLevelSchema.nullable(),
    teams: z.array(projectBasicSchema),
    available_features: z.array(z.string()),
    is_member_join_email_enabled: z.boolean(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .register(components, { id: 'Organization' });
export type OrganizationResponse = z.infer<typeof organizationSchema>;

export const meSchema = /* @__PURE__ */ z
  .object({
    id: z.number().int(),
    date_joined: dateTime(),
    uuid: z.uuid(),
    distinct_id: z.string(),
    first_name: z.string(),
    email: z.string(),
    pending_email: z.string().nullable(),
    email_opt_in: z.boolean(),
    is_email_verified: z.boolean().nullable(),
    notification_settings: z.record(z.string(), z.unknown()),
    anonymize_data: z.boolean(),
    toolbar_mode: z.string().nullable(),
    has_password: z.boolean(),
    is_staff: z.boolean(),
    is_impersonated: z.boolean(),
    /** The current project, in the reduced shape; null when the user has none. */
    team: projectBasicSchema.nullable(),
    organization: organizationSchema.nullable(),
    organizations: z.array(organizationBasicSchema),
    events_column_config: z.record(z.string(), z.unknown()),
  })
  .register(components, { id: 'User' });
export type MeResponse = z.infer<typeof meSchema>;

/**
 * What a user may change of themselves: their name, and their current project (PostHog's write-only
 * `set_current_team`, which also makes the project's organization current). Other fields are ignored.
 */
export const meUpdateSchema = /* @__PURE__ */ z
  .object({
    first_name: z.string().max(150),
    set_current_team: z.number().int(),
  })
  .partial()
  .register(components, { id: 'UserUpdate' });
