import * as z from 'zod';
import { dateTime, userBasicSchema } from './common';
import { components } from './registry';

/** A cohort in PostHog's shape (`posthog/api/cohort.py`). `filters` is always present: legacy `groups` converted on read. */
export const cohortSchema = /* @__PURE__ */ z
  .object({
    id: z.number().int(),
    name: z.string().nullable(),
    description: z.string(),
    groups: z.array(z.unknown()),
    deleted: z.boolean(),
    filters: z.object({ properties: z.unknown() }),
    is_calculating: z.boolean(),
    created_by: userBasicSchema.nullable(),
    created_at: dateTime(),
    last_calculation: dateTime().nullable(),
    errors_calculating: z.number().int(),
    count: z.number().int().nullable(),
    is_static: z.boolean(),
  })
  .register(components, { id: 'Cohort' });

/** The writable fields; read-only ones sent are ignored, as PostHog ignores them. */
export const cohortWriteSchema = /* @__PURE__ */ z
  .object({
    name: z.string().max(400).nullable().optional(),
    description: z.string().max(1000).optional(),
    groups: z.unknown().optional().describe('Legacy definition: a list of OR-ed groups.'),
    filters: z.unknown().optional().describe('`{properties: {type: "AND"|"OR", values: [...]}}`.'),
    deleted: z.boolean().optional(),
    is_static: z.boolean().optional(),
  })
  .register(components, { id: 'CohortWrite' });
export type CohortWrite = z.infer<typeof cohortWriteSchema>;
