import type { EventDefinitionEdits } from '../shared/db/event-definition-edits';
import type { EventDefinitionUpdate } from '../shared/schemas/event-definition';

/** PostHog's `tagify`: trimmed, lower-cased, blank ones dropped, each once (first spelling's order). */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((tag) => tag.trim().toLowerCase()).filter((tag) => tag !== ''))];
}

/**
 * The edits of one PATCH by `userId` at `now`, given whether the definition is verified now (pure;
 * PostHog's EnterpriseEventDefinitionSerializer `update`):
 * - verifying an unverified definition records who and when;
 * - unverifying clears both;
 * - verifying a verified one changes nothing (its first verifier and time stay);
 * - every PATCH records who changed it last, and when.
 */
export function editsFor(
  patch: EventDefinitionUpdate,
  currentlyVerified: boolean,
  userId: number,
  now: Date,
): EventDefinitionEdits {
  const edits: EventDefinitionEdits = { updated_at: now.toISOString(), updated_by_id: userId };
  if (patch.owner !== undefined) edits.owner = patch.owner;
  if (patch.description !== undefined) edits.description = patch.description;
  if (patch.tags !== undefined) edits.tags = normalizeTags(patch.tags);
  if (patch.post_to_slack !== undefined) edits.post_to_slack = patch.post_to_slack;
  if (patch.verified === true && !currentlyVerified) {
    edits.verified = true;
    edits.verified_at = now.toISOString();
    edits.verified_by_id = userId;
  } else if (patch.verified === false) {
    edits.verified = false;
    edits.verified_at = null;
    edits.verified_by_id = null;
  }
  return edits;
}

/** PostHog's `event_type` filter and `search` (every word in the name, case-insensitively). */
export function matchesFilters(
  name: string,
  filters: { search?: string; event_type?: 'event' | 'event_custom' | 'event_posthog' },
): boolean {
  if (filters.event_type === 'event_custom' && name.startsWith('$')) return false;
  if (filters.event_type === 'event_posthog' && !name.startsWith('$')) return false;
  const words = (filters.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const lower = name.toLowerCase();
  return words.every((word) => lower.includes(word));
}
