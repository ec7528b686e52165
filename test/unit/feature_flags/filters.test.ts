import { validateFilters } from '../../../functions/feature_flags/filters';
import { ValidationError } from '../../../functions/shared/http/errors';

/** The error a filters object gets, as `{code, detail, attr}` (or undefined when valid). */
function errorOf(filters: Record<string, unknown>, creating = true) {
  try {
    validateFilters(filters, creating);
    return undefined;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { code: error.code, detail: error.detail, attr: error.attr };
  }
}

const invalid = (detail: string) => ({ code: 'invalid_input', detail, attr: 'filters' });

describe('validateFilters: PostHog’s validate_filters (posthog/api/feature_flag.py)', () => {
  it('keeps valid filters as given, extra keys included', () => {
    // Prepare
    const filters = {
      groups: [
        { properties: [{ key: 'email', value: 'x', operator: 'icontains', type: 'person', label: 'E' }] },
      ],
      multivariate: null,
      custom: { kept: true },
    };

    // Act / Assess
    expect(validateFilters(filters, true)).toEqual(filters);
  });

  it.each([
    [
      'no condition set on create',
      { groups: [] },
      invalid('Feature flags must have at least one condition set (group).'),
    ],
    [
      'variants summing to 90',
      {
        groups: [{}],
        multivariate: {
          variants: [
            { key: 'a', rollout_percentage: 60 },
            { key: 'b', rollout_percentage: 30 },
          ],
        },
      },
      invalid('Invalid variant definitions: Variant rollout percentages must sum to 100.'),
    ],
    [
      'a group property on a person flag',
      { groups: [{ properties: [{ key: 'k', type: 'group', group_type_index: 0 }] }] },
      invalid('Filters are not valid (can only use person and cohort properties)'),
    ],
    [
      'a group property of another group type',
      {
        aggregation_group_type_index: 1,
        groups: [{ properties: [{ key: 'k', type: 'group', group_type_index: 0 }] }],
      },
      invalid('Filters are not valid (can only use group properties)'),
    ],
    [
      'a variant override naming no variant',
      { groups: [{ variant: 'x' }] },
      invalid('Filters are not valid (variant override does not exist)'),
    ],
    [
      'more than 1000 values in one property',
      { groups: [{ properties: [{ key: 'id', value: Array.from({ length: 1001 }, (_, i) => i) }] }] },
      invalid('Property group expressions of type id cannot contain more than 1000 values.'),
    ],
    [
      'payloads that are a list',
      { groups: [{}], payloads: [1] },
      invalid('Payloads must be passed as a dictionary'),
    ],
    [
      'a payload that is not JSON text',
      { groups: [{}], payloads: { true: '{oops' } },
      invalid('Payload value is not valid JSON'),
    ],
    [
      'a payload of a boolean flag keyed other than "true"',
      { groups: [{}], payloads: { false: '1' } },
      invalid("Payload keys must be 'true' for boolean flags"),
    ],
    [
      'a payload of a multivariate flag keyed by no variant',
      {
        groups: [{}],
        multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] },
        payloads: { b: '1' },
      },
      invalid('Payload keys must match a variant key for multivariate flags'),
    ],
  ])('refuses %s', (_case, filters, error) => {
    expect(errorOf(filters)).toEqual(error);
  });

  it.each([
    [
      'a rollout above 100',
      { groups: [{ rollout_percentage: 101 }] },
      'filters__groups__0__rollout_percentage',
    ],
    ['groups that are not a list', { groups: 'all' }, 'filters__groups'],
    [
      'a group type index above 4',
      { aggregation_group_type_index: 5, groups: [{}] },
      'filters__aggregation_group_type_index',
    ],
  ])('refuses %s naming the nested field', (_case, filters, attr) => {
    expect(errorOf(filters)).toMatchObject({ attr });
  });

  it('accepts cohort conditions (their cohorts are checked against the project by checkFlagCohorts)', () => {
    // Prepare
    const filters = {
      groups: [{ properties: [{ key: 'id', type: 'cohort', value: 4 }], rollout_percentage: 100 }],
    };

    // Act / Assess
    expect(errorOf(filters)).toBeUndefined();
  });

  it('allows an existing flag to be left without conditions (PATCH)', () => {
    expect(errorOf({ groups: [] }, false)).toBeUndefined();
  });

  it('stores object payloads as JSON text and keeps other JSON as it is', () => {
    // Act
    const filters = validateFilters(
      {
        groups: [{}],
        multivariate: {
          variants: [
            { key: 'a', rollout_percentage: 50 },
            { key: 'b', rollout_percentage: 50 },
          ],
        },
        payloads: { a: { color: 'blue' }, b: '[1, 2]' },
      },
      true,
    );

    // Assess
    expect(filters.payloads).toEqual({ a: '{"color":"blue"}', b: '[1, 2]' });
  });

  it('refuses filters too large for one item', () => {
    expect(errorOf({ groups: [{ properties: [{ key: 'k', value: 'x'.repeat(300_000) }] }] })).toMatchObject({
      attr: 'filters',
      detail: expect.stringContaining('too large'),
    });
  });
});
