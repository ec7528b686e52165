import {
  CohortCycleError,
  matchCohort,
  matchPropertyGroup,
} from '../../../../functions/shared/domain/flags/cohorts';
import type { CohortContext } from '../../../../functions/shared/domain/flags/cohorts';
import type { PropertyBag, PropertyGroup } from '../../../../functions/shared/domain/flags/types';

const now = new Date('2024-01-01T00:00:00Z');
const person = { email: 'ada@posthog.com', plan: 'gold', age: 36, country: 'UK' };
const context = (
  cohorts: Record<string, PropertyGroup>,
  personProperties: PropertyBag = person,
): CohortContext => ({
  cohorts,
  personProperties,
  now,
});
const goldOrUS: PropertyGroup = {
  type: 'OR',
  values: [
    { type: 'AND', values: [{ key: 'plan', value: 'gold', type: 'person' }] },
    { type: 'AND', values: [{ key: 'country', value: 'US', type: 'person' }] },
  ],
};

describe('matchCohort', () => {
  it('makes a person a member when their properties satisfy the AND group', () => {
    const cohorts = {
      '1': {
        type: 'AND',
        values: [
          { key: 'email', value: 'posthog.com', operator: 'icontains', type: 'person' },
          { key: 'age', value: 30, operator: 'gt', type: 'person' },
        ],
      },
    };

    const member = matchCohort({ key: 'id', value: 1, type: 'cohort' }, context(cohorts));
    const tooYoung = matchCohort(
      { key: 'id', value: 1, type: 'cohort' },
      context(cohorts, { ...person, age: 20 }),
    );

    expect(member).toEqual({ matches: true });
    expect(tooYoung).toEqual({ matches: false });
  });

  it('matches an OR of nested AND groups when any of them holds', () => {
    const cohorts = { '2': goldOrUS };

    const results = [
      { ...person, plan: 'gold', country: 'UK' },
      { ...person, plan: 'free', country: 'US' },
      { ...person, plan: 'free', country: 'UK' },
    ].map(
      (properties) =>
        matchCohort({ key: 'id', value: '2', type: 'cohort' }, context(cohorts, properties)).matches,
    );

    expect(results).toEqual([true, true, false]);
  });

  it('inverts a negated leaf', () => {
    const cohorts = {
      '3': { type: 'AND', values: [{ key: 'plan', value: 'free', type: 'person', negation: true }] },
    };

    const gold = matchCohort({ key: 'id', value: 3, type: 'cohort' }, context(cohorts));
    const free = matchCohort({ key: 'id', value: 3, type: 'cohort' }, context(cohorts, { plan: 'free' }));

    expect([gold.matches, free.matches]).toEqual([true, false]);
  });

  it('inverts membership for operator not_in', () => {
    const cohorts = { '2': goldOrUS };

    const result = matchCohort({ key: 'id', value: 2, type: 'cohort', operator: 'not_in' }, context(cohorts));

    expect(result).toEqual({ matches: false });
  });

  it('follows a cohort that refers to another cohort', () => {
    const cohorts = {
      '2': goldOrUS,
      '4': {
        type: 'AND',
        values: [
          { key: 'id', value: 2, type: 'cohort' },
          { key: 'email', value: '@posthog.com$', operator: 'regex', type: 'person' },
        ],
      },
    };

    const result = matchCohort({ key: 'id', value: 4, type: 'cohort' }, context(cohorts));

    expect(result).toEqual({ matches: true });
  });

  it('counts nobody as a member of a cohort it has no definition for, and says so', () => {
    const cohorts = {};

    const inStatic = matchCohort({ key: 'id', value: 99, type: 'cohort' }, context(cohorts));
    const notInStatic = matchCohort(
      { key: 'id', value: 99, type: 'cohort', operator: 'not_in' },
      context(cohorts),
    );

    expect(inStatic).toEqual({ matches: false, unresolved: 'cohort_not_evaluable' });
    expect(notInStatic).toEqual({ matches: true, unresolved: 'cohort_not_evaluable' });
  });

  it('counts a behavioural leaf as not performed, and says so', () => {
    const cohorts = {
      '5': { type: 'AND', values: [{ key: '$pageview', value: 'performed_event', type: 'behavioral' }] },
    };

    const result = matchCohort({ key: 'id', value: 5, type: 'cohort' }, context(cohorts));

    expect(result).toEqual({ matches: false, unresolved: 'cohort_not_evaluable' });
  });

  it('throws on a cohort that contains itself, rather than loop', () => {
    const cohorts = {
      '6': { type: 'AND', values: [{ key: 'id', value: 7, type: 'cohort' }] },
      '7': { type: 'OR', values: [{ key: 'id', value: 6, type: 'cohort' }] },
    };

    const evaluate = () => matchCohort({ key: 'id', value: 6, type: 'cohort' }, context(cohorts));

    expect(evaluate).toThrow(CohortCycleError);
  });
});

describe('matchPropertyGroup', () => {
  it('reads {} as everyone, an empty AND as true and an empty OR as false', () => {
    const empty = {} as PropertyGroup;

    const results = [empty, { type: 'AND', values: [] }, { type: 'OR', values: [] }].map(
      (group) => matchPropertyGroup(group, context({})).matches,
    );

    expect(results).toEqual([true, true, false]);
  });

  it("reads PostHog's legacy `property` group type as AND", () => {
    const group = { type: 'property', values: [{ key: 'plan', value: 'gold', type: 'person' }] };

    const result = matchPropertyGroup(group, context({}));

    expect(result).toEqual({ matches: true });
  });

  it('is decided, as in posthog-node, by a known false in AND even when another value is absent', () => {
    const group = {
      type: 'AND',
      values: [
        { key: 'unknown', value: 'x', type: 'person' },
        { key: 'plan', value: 'free', type: 'person' },
      ],
    };

    const result = matchPropertyGroup(group, context({}));

    expect(result).toEqual({ matches: false });
  });

  it("is the server's answer, and says so, when only an absent value could decide", () => {
    const group = {
      type: 'AND',
      values: [
        { key: 'plan', value: 'gold', type: 'person' },
        { key: 'company', value: 'acme', operator: 'is_not', type: 'person' },
      ],
    };

    const result = matchPropertyGroup(group, context({}));

    expect(result).toEqual({ matches: true, unresolved: 'missing_property' });
  });

  it('matches nothing for a group type other than AND and OR', () => {
    const group = { type: 'XOR', values: [] };

    const result = matchPropertyGroup(group, context({}));

    expect(result).toEqual({ matches: false, unresolved: 'cohort_not_evaluable' });
  });
});
