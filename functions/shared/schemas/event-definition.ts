import * as z from 'zod';
import { dateTime, userBasicSchema } from './common';
import { components } from './registry';

/**
 * Event definitions (`posthog/api/event_definition.py`). PostHog's OpenAPI types `is_action` as a
 * string (it types its method field so); its value is a boolean in PostHog's responses, and so in Flock's.
 * `owner` is the owner's user id, on read as on write.
 */
export const eventDefinitionSchema = /* @__PURE__ */ z
  .object({
    id: z.uuid(),
    name: z.string(),
    owner: z.number().int().nullable(),
    description: z.string().nullable(),
    tags: z.array(z.string()),
    /** Events of this name over the last 30 UTC days, from the consumer's daily counters. */
    volume_30_day: z.number().int().nullable(),
    /** Flock does not count queries per event: always null, as PostHog's before its job has run. */
    query_usage_30_day: z.number().int().nullable(),
    created_at: dateTime().nullable(),
    updated_at: dateTime().nullable(),
    updated_by: userBasicSchema.nullable(),
    last_seen_at: dateTime().nullable(),
    last_updated_at: dateTime().nullable(),
    verified: z.boolean(),
    verified_at: dateTime().nullable(),
    verified_by: userBasicSchema.nullable(),
    is_action: z.boolean(),
    action_id: z.number().int().nullable(),
    is_calculating: z.boolean(),
    last_calculated_at: dateTime().nullable(),
    created_by: userBasicSchema.nullable(),
    post_to_slack: z.boolean(),
  })
  .register(components, { id: 'EventDefinition' });
export type EventDefinitionResponse = z.infer<typeof eventDefinitionSchema>;

/** The writable fields, all optional; the read-only ones are ignored. */
export const eventDefinitionUpdateSchema = /* @__PURE__ */ z
  .object({
    owner: z.number().int().nullable(),
    description: z.string().max(10_000).nullable(),
    tags: z.array(z.string().max(255)).max(100),
    verified: z.boolean(),
    post_to_slack: z.boolean(),
  })
  .partial()
  .register(components, { id: 'EventDefinitionUpdate' });
export type EventDefinitionUpdate = z.infer<typeof eventDefinitionUpdateSchema>;

/** Filters of the list besides the page (PostHog's `search` and `event_type`). */
export const eventDefinitionQuerySchema = /* @__PURE__ */ z.object({
  search: z.string().optional().describe('Words that must all occur in the name, case-insensitively.'),
  event_type: z
    .enum(['event', 'event_custom', 'event_posthog'])
    .optional()
    .describe('`event_custom`: names not starting with `$`; `event_posthog`: names starting with `$`.'),
});
