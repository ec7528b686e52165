import * as z from 'zod';
import { dateTime, membershipLevelSchema, storableJson } from './common';
import { components } from './registry';
import { timezones } from './timezones';

/** Projects (`posthog/api/team.py`): the full shape, the reduced list shape, and the writable fields. */

export const timezoneSchema = /* @__PURE__ */ z
  .enum(timezones, { error: (issue) => `"${String(issue.input)}" is not a valid choice.` })
  .register(components, { id: 'Timezone', description: 'The time zones a project may use.' });

/** A JSON field whose inner structure PostHog leaves open: an object or an array. */
const jsonContainer = /* @__PURE__ */ z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]);

/** Bounds that keep a project one DynamoDB item (400 KB); PostHog's own are per string only. */
const maxListLength = 200;
const stringList = (maxLength: number) => z.array(z.string().max(maxLength)).max(maxListLength);

/**
 * Every field a client may write, all optional: create fills the rest with PostHog's
 * defaults, PATCH changes only what is given. Unknown and read-only fields (`id`, `api_token`,
 * `ingested_event`…) are dropped, as DRF ignores them.
 */
export const projectWriteSchema = /* @__PURE__ */ z
  .object({
    app_urls: stringList(200),
    name: z.string().min(1, 'This field may not be blank.').max(200),
    slack_incoming_webhook: z.string().max(500).nullable(),
    anonymize_ips: z.boolean(),
    completed_snippet_onboarding: z.boolean(),
    test_account_filters: storableJson(jsonContainer),
    test_account_filters_default_checked: z.boolean(),
    path_cleaning_filters: storableJson(jsonContainer),
    timezone: timezoneSchema,
    data_attributes: storableJson(jsonContainer),
    person_display_name_properties: stringList(400),
    correlation_config: storableJson(z.record(z.string(), z.unknown())),
    session_recording_opt_in: z.boolean(),
    capture_console_log_opt_in: z.boolean(),
    access_control: z.boolean(),
    // Dashboards are not modelled in Flock: the id is kept as given (PostHog checks it exists).
    primary_dashboard: z.number().int().nullable(),
    live_events_columns: stringList(400).nullable(),
    recording_domains: stringList(200).nullable(),
  })
  .partial()
  .register(components, { id: 'ProjectWrite' });

/** The full shape: create, retrieve and update responses (PostHog's TeamSerializer fields). */
export const projectSchema = /* @__PURE__ */ z
  .object({
    id: z.number().int(),
    uuid: z.uuid(),
    organization: z.uuid(),
    api_token: z.string(),
    app_urls: z.array(z.string()),
    name: z.string(),
    slack_incoming_webhook: z.string().nullable(),
    created_at: dateTime(),
    updated_at: dateTime(),
    anonymize_ips: z.boolean(),
    completed_snippet_onboarding: z.boolean(),
    ingested_event: z.boolean(),
    test_account_filters: jsonContainer,
    test_account_filters_default_checked: z.boolean(),
    path_cleaning_filters: jsonContainer,
    is_demo: z.boolean(),
    timezone: timezoneSchema,
    data_attributes: jsonContainer,
    person_display_name_properties: z.array(z.string()),
    correlation_config: z.record(z.string(), z.unknown()),
    session_recording_opt_in: z.boolean(),
    capture_console_log_opt_in: z.boolean(),
    effective_membership_level: membershipLevelSchema.nullable(),
    access_control: z.boolean(),
    has_group_types: z.boolean(),
    primary_dashboard: z.number().int().nullable(),
    live_events_columns: z.array(z.string()).nullable(),
    recording_domains: z.array(z.string()).nullable(),
  })
  .register(components, { id: 'Project' });
export type ProjectResponse = z.infer<typeof projectSchema>;

/** The reduced shape of the list, also PostHog's TeamBasic. */
export const projectBasicSchema = /* @__PURE__ */ z
  .object({
    id: z.number().int(),
    uuid: z.uuid(),
    organization: z.uuid(),
    api_token: z.string(),
    name: z.string(),
    completed_snippet_onboarding: z.boolean(),
    ingested_event: z.boolean(),
    is_demo: z.boolean(),
    timezone: timezoneSchema,
    effective_membership_level: membershipLevelSchema.nullable(),
    access_control: z.boolean(),
  })
  .register(components, { id: 'ProjectBasic' });
export type ProjectBasicResponse = z.infer<typeof projectBasicSchema>;
