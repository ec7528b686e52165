import { patchedFlag } from '../../../functions/feature_flags/update';
import type { FeatureFlagRecord } from '../../../functions/shared/db/feature-flags';

const current: FeatureFlagRecord = {
  id: 5,
  team_id: 1,
  key: 'k',
  name: 'Old',
  filters: { groups: [{ properties: [], rollout_percentage: 10 }] },
  active: true,
  deleted: false,
  ensure_experience_continuity: false,
  is_remote_configuration: false,
  rollout_percentage: null,
  created_at: '2026-11-01T00:00:00.000Z',
  created_by: null,
  updated_at: '2026-11-01T00:00:00.000Z',
  version: 3,
};
const now = new Date('2026-11-21T12:00:00.000Z');

describe('patchedFlag: a PATCH applied to a flag', () => {
  it('changes only the given fields, bumps the version and stamps updated_at', () => {
    expect(patchedFlag(current, { name: 'New', deleted: true }, now)).toEqual({
      ...current,
      name: 'New',
      deleted: true,
      version: 4,
      updated_at: now.toISOString(),
    });
  });

  it('keeps the filters when the patch’s filters have no groups (PostHog’s rule)', () => {
    expect(patchedFlag(current, { filters: { payloads: { true: 1 } } }, now).filters).toBe(current.filters);
  });

  it('validates and replaces filters that have groups', () => {
    expect(patchedFlag(current, { filters: { groups: [{ rollout_percentage: 90 }] } }, now).filters).toEqual({
      groups: [{ rollout_percentage: 90 }],
    });
    expect(() => patchedFlag(current, { filters: { groups: [{ variant: 'nope' }] } }, now)).toThrow(
      'Filters are not valid (variant override does not exist)',
    );
  });

  it('reads a null ensure_experience_continuity as false', () => {
    expect(
      patchedFlag(
        { ...current, ensure_experience_continuity: true },
        { ensure_experience_continuity: null },
        now,
      ).ensure_experience_continuity,
    ).toBe(false);
  });
});
