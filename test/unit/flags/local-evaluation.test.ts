import { definitionsOf, etagMatches } from '../../../functions/flags/local-evaluation';
import { projectFlagsOf } from '../../../functions/flags/project-flags';
import type { FeatureFlagRecord } from '../../../functions/shared/db/feature-flags';

const flag = (id: number, fields: Partial<FeatureFlagRecord> = {}): FeatureFlagRecord => ({
  id,
  team_id: 7,
  key: `flag-${id}`,
  name: '',
  filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
  active: true,
  deleted: false,
  ensure_experience_continuity: false,
  is_remote_configuration: false,
  rollout_percentage: null,
  created_at: '2026-11-21T00:00:00.000Z',
  created_by: null,
  updated_at: '2026-11-21T00:00:00.000Z',
  version: 1,
  ...fields,
});

describe('local evaluation definitions (what posthog-node reads)', () => {
  it('serves flags not deleted, inactive ones included, by id, with the group types and cohorts', () => {
    // Prepare
    const project = projectFlagsOf(7, [flag(3, { active: false }), flag(1), flag(2, { deleted: true })], {
      0: 'company',
    });

    // Act
    const body = JSON.parse(definitionsOf(project).body) as { flags: { id: number; active: boolean }[] };

    // Assess
    expect(body).toEqual({
      flags: [
        {
          id: 1,
          team_id: 7,
          name: '',
          key: 'flag-1',
          filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
          deleted: false,
          active: true,
          ensure_experience_continuity: false,
          rollout_percentage: null,
          version: 1,
        },
        expect.objectContaining({ id: 3, active: false }),
      ],
      group_type_mapping: { 0: 'company' },
      cohorts: {},
    });
  });

  it('tags the body with its hash: same definitions, same tag; any change, another', () => {
    // Act
    const one = definitionsOf(projectFlagsOf(7, [flag(1)], {}));
    const same = definitionsOf(projectFlagsOf(7, [flag(1)], {}));
    const changed = definitionsOf(projectFlagsOf(7, [flag(1, { version: 2 })], {}));

    // Assess
    expect(one.etag).toMatch(/^[0-9a-f]{32}$/);
    expect(same.etag).toBe(one.etag);
    expect(changed.etag).not.toBe(one.etag);
  });

  it.each([
    [undefined, false],
    ['W/"abc"', true],
    ['"abc"', true],
    ['abc', true],
    ['W/"other", W/"abc"', true],
    ['*', true],
    ['W/"abcd"', false],
  ])('If-None-Match %p matches tag abc: %p', (header, matches) => {
    expect(etagMatches(header, 'abc')).toBe(matches);
  });
});
