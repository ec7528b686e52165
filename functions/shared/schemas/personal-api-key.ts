import * as z from 'zod';
import type { KeyScope } from '../auth/scopes';
import { isKeyScope, scopeObjects } from '../auth/scopes';
import { dateTime } from './common';
import { components } from './registry';

/**
 * Personal API keys (PostHog's PersonalAPIKeySerializer): `value` is the key itself, returned once,
 * by the create that made it, and null ever after; `mask_value` (`phx_...abcd`) is what identifies it
 * later. `scopes` says what the key may do: `*` (whatever its user can), or `<object>:read|write`
 * (auth/scopes.ts); keys stored before keys had scopes show `*`.
 */
export const personalApiKeySchema = /* @__PURE__ */ z
  .object({
    id: z.uuid(),
    label: z.string(),
    value: z.string().nullable(),
    mask_value: z.string(),
    created_at: dateTime(),
    last_used_at: dateTime().nullable(),
    user_id: z.number().int(),
    scopes: z.array(z.string()).describe('`*`, or `<object>:read` / `<object>:write` scopes'),
    scoped_teams: z
      .array(z.number().int())
      .describe("Always empty: a Flock key reaches every project of its user's organizations"),
    scoped_organizations: z
      .array(z.string())
      .describe('Always empty: a Flock key reaches every organization its user belongs to'),
  })
  .register(components, { id: 'PersonalApiKey' });
export type PersonalApiKeyResponse = z.infer<typeof personalApiKeySchema>;

/** Every scope twice (read and write) and `*`: more entries can only repeat one. */
const maxScopes = scopeObjects.length * 2 + 1;

/** PostHog's `validate_scopes`: `*`, or `<object>:<read|write>` of a known object; duplicates are dropped. */
const scopesSchema = /* @__PURE__ */ z
  .array(z.string().max(64, 'Ensure this field has no more than 64 characters.'))
  .min(1, 'This list may not be empty.')
  .max(maxScopes, `Ensure this field has no more than ${maxScopes} elements.`)
  .superRefine((scopes, context) => {
    const invalid = scopes.find((scope) => !isKeyScope(scope));
    if (invalid !== undefined) context.addIssue({ code: 'custom', message: `Invalid scope: ${invalid}` });
  })
  .transform((scopes) => [...new Set(scopes)] as KeyScope[]);

export const personalApiKeyCreateSchema = /* @__PURE__ */ z
  .object({
    label: z.string().trim().min(1, 'This field may not be blank.').max(40),
    scopes: scopesSchema
      .optional()
      .describe(
        'What the key may do: `*` (the default) or `<object>:read|write` scopes, none broader than the calling key’s',
      ),
  })
  .register(components, { id: 'PersonalApiKeyCreate' });
