import { serializeFeatureFlag } from '../../../functions/feature_flags/serialize';
import type { FeatureFlagRecord } from '../../../functions/shared/db/feature-flags';
import type { FlagFilters } from '../../../functions/shared/domain/flags';
import { activeFlagFields } from '../../helpers/stored-records';

const flagWith = (filters: FlagFilters): FeatureFlagRecord => ({
  ...activeFlagFields('k', filters),
  id: 1,
  team_id: 1,
  created_at: '2026-11-21T00:00:00.000Z',
  updated_at: '2026-11-21T00:00:00.000Z',
  version: 1,
});

describe('serializeFeatureFlag: is_simple_flag and rollout_percentage (posthog/api/feature_flag.py)', () => {
  it.each([
    ['one condition without properties', { groups: [{ properties: [], rollout_percentage: 30 }] }, true, 30],
    ['one condition at 100 % (null)', { groups: [{ rollout_percentage: null }] }, true, null],
    ['two conditions', { groups: [{}, {}] }, false, null],
    [
      'a property',
      { groups: [{ properties: [{ key: 'a', value: 1 }], rollout_percentage: 30 }] },
      false,
      null,
    ],
    ['a group flag', { aggregation_group_type_index: 0, groups: [{ rollout_percentage: 30 }] }, false, null],
  ])('%s', (_case, filters, isSimple, rollout) => {
    expect(serializeFeatureFlag(flagWith(filters as FlagFilters))).toMatchObject({
      is_simple_flag: isSimple,
      rollout_percentage: rollout,
    });
  });
});
