import type { FeatureFlagRecord } from '../shared/db/feature-flags';
import type { FlagCondition } from '../shared/domain/flags';

/**
 * A flag as PostHog's API shows it (`posthog/api/feature_flag.py`): the model's fields plus `is_simple_flag`
 * (one condition, no properties, not a group flag) and `rollout_percentage` (that condition's
 * rollout when simple, else null).
 */
export function serializeFeatureFlag(flag: FeatureFlagRecord) {
  const conditions: readonly FlagCondition[] = Array.isArray(flag.filters.groups) ? flag.filters.groups : [];
  const aggregation = flag.filters.aggregation_group_type_index;
  const isSimpleFlag =
    conditions.length === 1 &&
    conditions.every((condition) => (condition.properties ?? []).length === 0) &&
    (aggregation === null || aggregation === undefined);
  return {
    id: flag.id,
    name: flag.name,
    key: flag.key,
    filters: flag.filters,
    deleted: flag.deleted,
    active: flag.active,
    created_by: flag.created_by,
    created_at: flag.created_at,
    updated_at: flag.updated_at,
    version: flag.version,
    ensure_experience_continuity: flag.ensure_experience_continuity,
    is_simple_flag: isSimpleFlag,
    rollout_percentage: isSimpleFlag ? (conditions[0]?.rollout_percentage ?? null) : null,
    is_remote_configuration: flag.is_remote_configuration,
    experiment_set: [],
    tags: [],
  };
}
