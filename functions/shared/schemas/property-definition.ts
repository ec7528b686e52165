import * as z from 'zod';
import { components } from './registry';

/**
 * Property definitions (`posthog/api/property_definition.py`): what ingestion saw of each event and
 * person property, its type detected from the first value.
 */
export const propertyDefinitionSchema = /* @__PURE__ */ z
  .object({
    id: z.uuid(),
    name: z.string(),
    is_numerical: z.boolean(),
    property_type: z.enum(['String', 'Numeric', 'Boolean', 'DateTime']).nullable(),
    tags: z.array(z.string()),
    /** Whether any of `event_names` was seen with this property; null without `event_names`. */
    is_seen_on_filtered_events: z.boolean().nullable(),
  })
  .register(components, { id: 'PropertyDefinition' });
export type PropertyDefinitionResponse = z.infer<typeof propertyDefinitionSchema>;

/** A query flag as PostHog's serializer reads it: `true`/`false` (any case, or 1/0). */
const flag = /* @__PURE__ */ z
  .string()
  .regex(/^(true|false|1|0)$/i, 'Must be a valid boolean.')
  .transform((value) => ['true', '1'].includes(value.toLowerCase()));

/** A JSON-encoded list of names (at most 100, as a bound on the reads it causes). */
const nameList = (what: string) =>
  z.string().transform((value, context) => {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed) && parsed.length <= 100 && parsed.every((name) => typeof name === 'string'))
        return parsed;
    } catch {
      // reported below
    }
    context.addIssue({ code: 'custom', message: `Must be a JSON list of at most 100 ${what}.` });
    return z.NEVER;
  });

/** Filters of the list besides the page (PostHog's `PropertyDefinitionQuerySerializer`). */
export const propertyDefinitionQuerySchema = /* @__PURE__ */ z.object({
  type: z
    .enum(['event', 'person'])
    .optional()
    .describe('`event` (the default): event properties; `person`: person properties.'),
  search: z
    .string()
    .max(1_000)
    .optional()
    .describe('Words that must all occur in the name, case-insensitively.'),
  event_names: nameList('event names')
    .optional()
    .describe('JSON list of event names: fills `is_seen_on_filtered_events` and lists those seen first.'),
  filter_by_event_names: flag
    .optional()
    .describe('With `event_names`: only the properties seen with one of those events.'),
  properties: z.string().optional().describe('Comma-separated names: only these.'),
  excluded_properties: nameList('property names').optional().describe('JSON list of names to leave out.'),
  is_numerical: flag
    .optional()
    .describe('`true`: only numeric properties (not `distinct_id` nor `timestamp`).'),
  is_feature_flag: flag.optional().describe('`true`: only `$feature/…` properties; `false`: all but those.'),
  exclude_core_properties: flag
    .optional()
    .describe(
      "`true`: leave out PostHog's own properties (`$…`) and the campaign parameters (`utm_…`, `gclid`…).",
    ),
  exclude_hidden: flag.optional().describe('Accepted for PostHog clients; no definition is hidden in Flock.'),
});
export type PropertyDefinitionQuery = z.infer<typeof propertyDefinitionQuerySchema>;
