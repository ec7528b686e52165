import { needsStoredPerson, personNeedsOf } from '../../../functions/flags/person-needs';
import type { FeatureFlag } from '../../../functions/shared/domain/flags';

const flag = (fields: Partial<FeatureFlag>): FeatureFlag => ({
  id: 1,
  key: 'f',
  active: true,
  filters: { groups: [] },
  ...fields,
});

describe('personNeedsOf: what a flag reads of the stored person', () => {
  it('collects the person property keys of every condition, early-access and holdout ones too', () => {
    // Act
    const needs = personNeedsOf(
      flag({
        filters: {
          groups: [
            {
              properties: [
                { key: 'email', value: 'x' },
                { key: 'distinct_id', value: 'd' },
              ],
            },
            { properties: [{ key: 'plan', value: 'pro', type: 'person' }] },
          ],
          super_groups: [{ properties: [{ key: '$feature_enrollment/f', value: true }] }],
        },
      }),
    );

    // Assess: distinct_id is always sent with the evaluation, never read from the store
    expect(needs).toEqual({ keys: ['email', 'plan', '$feature_enrollment/f'], storedPerson: false });
  });

  it('skips group-targeted conditions, and needs the store for cohorts', () => {
    // Act
    const group = personNeedsOf(
      flag({
        filters: {
          aggregation_group_type_index: 0,
          groups: [{ properties: [{ key: 'name', type: 'group' }] }],
        },
      }),
    );
    const cohort = personNeedsOf(
      flag({ filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 3 }] }] } }),
    );

    // Assess
    expect(group).toEqual({ keys: [], storedPerson: false });
    expect(cohort).toEqual({ keys: [], storedPerson: true });
  });

  it('reads a legacy flag’s properties, and survives malformed filters', () => {
    // Act
    const legacy = personNeedsOf(flag({ filters: { properties: [{ key: 'email', value: 'x' }] } }));
    const malformed = personNeedsOf(flag({ filters: { groups: 'oops' as never } }));

    // Assess
    expect(legacy.keys).toEqual(['email']);
    expect(malformed).toEqual({ keys: [], storedPerson: false });
  });

  it('reads the device id of device-bucketed flags and the enrollment of early-access ones', () => {
    // Act
    const needs = personNeedsOf(
      flag({ bucketing_identifier: 'device_id', filters: { groups: [{}], feature_enrollment: true } }),
    );

    // Assess
    expect([...needs.keys].sort()).toEqual(['$device_id', '$feature_enrollment/f']);
  });
});

describe('needsStoredPerson', () => {
  it('is false only when the request sent every key the flag reads', () => {
    // Prepare
    const needs = { keys: ['email', 'plan'], storedPerson: false };

    // Act / Assess
    expect(needsStoredPerson(needs, { email: 'a', plan: null })).toBe(false);
    expect(needsStoredPerson(needs, { email: 'a' })).toBe(true);
    expect(needsStoredPerson({ keys: [], storedPerson: true }, {})).toBe(true);
    expect(needsStoredPerson({ keys: [], storedPerson: false }, {})).toBe(false);
  });
});
