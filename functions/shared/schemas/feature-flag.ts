import * as z from 'zod';
import { userBasicSchema } from './common';
import { components } from './registry';

/**
 * A feature flag as the flags API answers it (`functions/feature_flags/serialize.ts`; a test parses
 * that function's output with this schema, so the two cannot drift).
 */
export const featureFlagSchema = /* @__PURE__ */ z
  .object({
    id: z.number().int(),
    name: z.string(),
    key: z.string(),
    filters: z
      .record(z.string(), z.unknown())
      .describe('PostHog flag filters: `groups`, `multivariate`, `payloads`, …'),
    deleted: z.boolean(),
    active: z.boolean(),
    created_by: userBasicSchema.nullable(),
    created_at: z.string(),
    updated_at: z.string().nullable(),
    version: z.number().int(),
    ensure_experience_continuity: z.boolean().nullable(),
    is_simple_flag: z.boolean(),
    rollout_percentage: z.number().nullable(),
    is_remote_configuration: z.boolean(),
    experiment_set: z.array(z.unknown()),
    tags: z.array(z.string()),
  })
  .register(components, { id: 'FeatureFlag' });
