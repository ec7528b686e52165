import type { NewCohort } from '../../functions/shared/db/cohorts';
import type { NewFeatureFlag } from '../../functions/shared/db/feature-flags';
import type { FlagFilters } from '../../functions/shared/domain/flags';

/**
 * Records as the repositories store them, for tests that write straight to a table what the API
 * would refuse today (definitions stored before a limit) or that test the storage protocol itself.
 */

/** A live dynamic cohort awaiting its first calculation. */
export const dynamicCohortFields = (
  projectId: number,
  name: string,
  filters: Record<string, unknown>,
): NewCohort => ({
  team_id: projectId,
  name,
  description: '',
  groups: [],
  filters,
  deleted: false,
  is_static: false,
  is_calculating: true,
  count: null,
  last_calculation: null,
  errors_calculating: 0,
  last_error_at: null,
  created_by: null,
  pending_version: 1,
});

/** An active boolean flag. */
export const activeFlagFields = (key: string, filters: FlagFilters): NewFeatureFlag => ({
  key,
  name: '',
  filters,
  active: true,
  deleted: false,
  ensure_experience_continuity: false,
  is_remote_configuration: false,
  rollout_percentage: null,
  created_by: null,
});
