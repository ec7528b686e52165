import type { User } from '../shared/db/users';
import type { EventDefinitionItem } from '../shared/db/definitions';
import type { EventDefinitionResponse } from '../shared/schemas/event-definition';
import { userBasic } from '../shared/schemas/common';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const integer = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** The user ids a definition refers to (`updated_by`, `verified_by`), to read them in one batch. */
export function userIdsOf(item: EventDefinitionItem): number[] {
  return [integer(item.updated_by_id), integer(item.verified_by_id)].filter(
    (id): id is number => id !== null,
  );
}

/**
 * A definition in the shape of PostHog's `posthog/api/event_definition.py`. What ingestion writes (`id`, `name`, `created_at`,
 * `last_seen_at`) and what the API writes (owner, description, tags, verified…, `updated_*`) live on
 * the same item; fields never written read as PostHog's defaults.
 */
export function serializeEventDefinition(
  item: EventDefinitionItem,
  volume30Day: number | null,
  users: ReadonlyMap<number, User>,
): EventDefinitionResponse {
  const userOf = (id: unknown) => {
    const userId = integer(id);
    const user = userId === null ? undefined : users.get(userId);
    return user ? userBasic(user) : null;
  };
  const updatedAt = text(item.updated_at);
  return {
    id: item.id,
    name: item.name,
    owner: integer(item.owner),
    description: text(item.description),
    tags: Array.isArray(item.tags) ? item.tags.filter((tag): tag is string => typeof tag === 'string') : [],
    volume_30_day: volume30Day,
    query_usage_30_day: null,
    created_at: item.created_at ?? null,
    updated_at: updatedAt,
    updated_by: userOf(item.updated_by_id),
    last_seen_at: item.last_seen_at ?? null,
    last_updated_at: updatedAt,
    verified: item.verified === true,
    verified_at: text(item.verified_at),
    verified_by: userOf(item.verified_by_id),
    is_action: false,
    action_id: null,
    is_calculating: false,
    last_calculated_at: null,
    created_by: null,
    post_to_slack: item.post_to_slack === true,
  };
}
