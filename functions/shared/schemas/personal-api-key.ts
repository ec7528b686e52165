import * as z from 'zod';
import { dateTime } from './common';
import { components } from './registry';

/**
 * Personal API keys (PostHog's PersonalAPIKeySerializer): `value` is the key itself, returned once,
 * by the create that made it, and null ever after; `mask_value` (`phx_...abcd`) is what identifies it
 * later. Flock keys have no scopes: a key can do whatever its user can.
 */
export const personalApiKeySchema = z
  .object({
    id: z.uuid(),
    label: z.string(),
    value: z.string().nullable(),
    mask_value: z.string(),
    created_at: dateTime(),
    last_used_at: dateTime().nullable(),
    user_id: z.number().int(),
  })
  .register(components, { id: 'PersonalApiKey' });
export type PersonalApiKeyResponse = z.infer<typeof personalApiKeySchema>;

export const personalApiKeyCreateSchema = z
  .object({
    label: z.string().trim().min(1, 'This field may not be blank.').max(40),
  })
  .register(components, { id: 'PersonalApiKeyCreate' });
