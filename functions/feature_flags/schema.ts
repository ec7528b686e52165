import * as z from 'zod';

/**
 * The writable fields of a feature flag, as PostHog's serializer (`posthog/api/feature_flag.py`)
 * reads them.
 * Unknown and read-only fields (`id`, `created_by`, `version`, `is_simple_flag`…) are dropped, as DRF
 * ignores them. Filters are checked structurally here and by PostHog's rules in `filters.ts`.
 */

/** PostHog's key rule (`validate_key`), and its model's `max_length`. */
export const flagKeyPattern = /^[a-zA-Z0-9_-]+$/;
const maxKeyLength = 400;

export const flagKeySchema = z
  .string()
  .min(1, 'This field may not be blank.')
  .max(maxKeyLength, `Ensure this field has no more than ${maxKeyLength} characters.`);

const percentage = z.number().min(0).max(100);

/** One property filter; other keys (`label`, `negation`…) are kept as sent. */
export const propertyFilterSchema = z.looseObject({
  key: z.union([z.string(), z.number().transform(String)]),
  value: z.json().optional(),
  operator: z.string().nullable().optional(),
  type: z.string().optional(),
  group_type_index: z.number().int().nullable().optional(),
});

/** One condition set ("group") of a flag's release conditions. */
export const conditionSchema = z.looseObject({
  properties: z.array(propertyFilterSchema).nullable().optional(),
  rollout_percentage: percentage.nullable().optional(),
  variant: z.string().nullable().optional(),
});

export const variantSchema = z.looseObject({
  key: z.string().min(1),
  name: z.string().nullable().optional(),
  rollout_percentage: percentage,
});

/** The shape of `filters`; payloads are checked by PostHog's rules, with PostHog's messages. */
export const filtersSchema = z.looseObject({
  groups: z.array(conditionSchema).optional(),
  multivariate: z
    .looseObject({ variants: z.array(variantSchema) })
    .nullable()
    .optional(),
  payloads: z.unknown().optional(),
  aggregation_group_type_index: z.number().int().min(0).max(4).nullable().optional(),
  super_groups: z.array(conditionSchema).optional(),
  holdout_groups: z.array(conditionSchema).optional(),
});
export type FiltersInput = z.infer<typeof filtersSchema>;

/**
 * Flock's bound on the description (`name`, unbounded in PostHog): a flag is one DynamoDB item of
 * at most 400 KB, of which the filters may take 256 KB.
 */
const maxNameLength = 10_000;

/** Create and PATCH bodies (PATCH: every field optional). */
export const flagWriteSchema = z.object({
  key: flagKeySchema,
  name: z
    .string()
    .max(maxNameLength, `Ensure this field has no more than ${maxNameLength} characters.`)
    .optional(),
  filters: z.record(z.string(), z.unknown()).optional(),
  active: z.boolean().optional(),
  deleted: z.boolean().optional(),
  ensure_experience_continuity: z.boolean().nullable().optional(),
  is_remote_configuration: z.boolean().optional(),
});

export const flagPatchSchema = flagWriteSchema.partial();
export type FlagPatch = z.infer<typeof flagPatchSchema>;
