import type { PersonalApiKey } from '../shared/db/personal-api-keys';
import type { PersonalApiKeyResponse } from '../shared/schemas/personal-api-key';

/** A key as the API shows it; `value` only ever comes from the create that generated it. */
export function serializePersonalApiKey(
  key: PersonalApiKey,
  value: string | null = null,
): PersonalApiKeyResponse {
  return {
    id: key.id,
    label: key.label,
    value,
    mask_value: key.mask_value,
    created_at: key.created_at,
    last_used_at: key.last_used_at,
    user_id: key.user_id,
    scopes: [...key.scopes],
    // PostHog's scoping of a key to projects or organizations is not offered: empty means all.
    scoped_teams: [],
    scoped_organizations: [],
  };
}
