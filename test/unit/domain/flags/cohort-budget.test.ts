import { cohortEvaluationSteps } from '../../../../functions/shared/domain/cohorts/limits';
import { EvaluationBudgetError, StepBudget } from '../../../../functions/shared/domain/flags/budget';
import { matchPropertyGroup } from '../../../../functions/shared/domain/flags/cohorts';
import type { PropertyMatch } from '../../../../functions/shared/domain/flags/property-match';
import { evaluateFlags } from '../../../../functions/shared/domain/flags/evaluate';
import type { FeatureFlag, PropertyGroup } from '../../../../functions/shared/domain/flags/types';

const now = new Date('2024-01-01T00:00:00Z');
const gold = { key: 'plan', value: 'gold', type: 'person' };
const cohortRef = (id: number) => ({ key: 'id', value: id, type: 'cohort' });

/**
 * Cohort 1 holds `width` person filters and the static cohort 999; cohort n (up to `levels`) holds
 * `width` references to cohort n − 1: written out in place, cohort `levels` is width^levels filters.
 */
function nestedCohorts(levels: number, width: number): Record<string, PropertyGroup> {
  const cohorts: Record<string, PropertyGroup> = {
    '1': { type: 'AND', values: [...Array.from({ length: width }, () => gold), cohortRef(999)] },
  };
  for (let level = 2; level <= levels; level++)
    cohorts[String(level)] = {
      type: 'AND',
      values: Array.from({ length: width }, () => cohortRef(level - 1)),
    };
  return cohorts;
}

/** `count` distinct cohorts of 200 filters each, and cohort 1000 naming them all. */
function wideCohorts(count: number): Record<string, PropertyGroup> {
  const cohorts: Record<string, PropertyGroup> = {};
  for (let id = 1; id <= count; id++)
    cohorts[String(id)] = { type: 'AND', values: Array.from({ length: 200 }, () => gold) };
  cohorts['1000'] = {
    type: 'AND',
    values: Array.from({ length: count }, (_, n) => cohortRef(n + 1)),
  };
  return cohorts;
}

const cohortFlag = (key: string, cohortId: number): FeatureFlag => ({
  id: 1,
  key,
  active: true,
  deleted: false,
  ensure_experience_continuity: false,
  filters: { groups: [{ properties: [cohortRef(cohortId)] as never, rollout_percentage: null }] },
});
const everyoneFlag: FeatureFlag = { ...cohortFlag('everyone', 0), filters: { groups: [{ properties: [] }] } };

describe('cohort evaluation memory', () => {
  it('matches a 200⁴ cohort graph in fewer than 1,000 steps: each cohort once per person', () => {
    const cohorts = nestedCohorts(4, 200);
    const context = (plan: string, budget: StepBudget) => ({
      cohorts,
      personProperties: { plan },
      now,
      membership: () => true,
      memo: new Map<string, PropertyMatch>(),
      budget,
    });

    const member = matchPropertyGroup(
      { type: 'AND', values: [cohortRef(4)] },
      {
        ...context('gold', new StepBudget(1_000)),
      },
    );
    const outsider = matchPropertyGroup(
      { type: 'AND', values: [cohortRef(4)] },
      {
        ...context('free', new StepBudget(1_000)),
      },
    );

    expect([member.matches, outsider.matches]).toEqual([true, false]);
  });

  it('shares what it matched between the flags of one person', () => {
    let membershipReads = 0;
    const membership = () => {
      membershipReads++;
      return true;
    };

    const result = evaluateFlags([cohortFlag('a', 4), cohortFlag('b', 3), cohortFlag('c', 4)], {
      distinctId: 'u',
      personProperties: { plan: 'gold' },
      cohorts: nestedCohorts(4, 200),
      cohortMembership: membership,
      now,
    });

    expect(Object.values(result.flags).map((flag) => flag.enabled)).toEqual([true, true, true]);
    expect(membershipReads).toBe(1);
  });
});

describe('cohort evaluation budget', () => {
  it('throws once an evaluation visits more groups and filters than its budget', () => {
    const context = { cohorts: wideCohorts(3), personProperties: { plan: 'gold' }, now };

    const within = () =>
      matchPropertyGroup(
        { type: 'AND', values: [cohortRef(1000)] },
        {
          ...context,
          budget: new StepBudget(700),
        },
      );
    const beyond = () =>
      matchPropertyGroup(
        { type: 'AND', values: [cohortRef(1000)] },
        {
          ...context,
          budget: new StepBudget(500),
        },
      );

    expect(within().matches).toBe(true);
    expect(beyond).toThrow(EvaluationBudgetError);
  });

  it('fails only the flag whose cohorts exceed it, and the response says errors occurred', () => {
    // 60 distinct cohorts of 200 filters: over 12,000 steps even remembered.
    const cohorts = { ...wideCohorts(60), ...nestedCohorts(4, 200) };
    const steps = jest.spyOn(StepBudget.prototype, 'spend');

    const result = evaluateFlags([cohortFlag('huge', 1000), cohortFlag('nested', 4), everyoneFlag], {
      distinctId: 'u',
      personProperties: { plan: 'gold' },
      cohorts,
      cohortMembership: () => true,
      now,
    });

    expect(result.flags['huge']).toMatchObject({ enabled: false, failed: true, reason: { code: 'unknown' } });
    expect([result.flags['nested']!.enabled, result.flags['everyone']!.enabled]).toEqual([true, true]);
    expect(result.errorsWhileComputingFlags).toBe(true);
    // The work stayed within each flag's budget: the huge flag's stopped one step past it.
    const stepsPerFlag = new Map<StepBudget, number>();
    for (const budget of steps.mock.contexts) stepsPerFlag.set(budget, (stepsPerFlag.get(budget) ?? 0) + 1);
    expect(Math.max(...stepsPerFlag.values())).toBe(cohortEvaluationSteps + 1);
    expect(steps.mock.calls.length).toBeLessThan(cohortEvaluationSteps + 1_000);
    steps.mockRestore();
  });
});

describe('values after the decision', () => {
  const group = (type: 'AND' | 'OR', first: object[]): PropertyGroup => ({
    type,
    values: [...first, ...Array.from({ length: 74 }, () => gold)] as PropertyGroup['values'],
  });
  const within = (steps: number) => ({ cohorts: {}, now, budget: new StepBudget(steps) });

  it('are not matched once a value decides the group: a person failing the first of 75 costs two steps', () => {
    const free = matchPropertyGroup(group('AND', [gold]), {
      ...within(2),
      personProperties: { plan: 'free' },
    });
    const gone = { key: 'plan', value: 'gone', type: 'person' };
    const pro = matchPropertyGroup(group('OR', [{ ...gone, operator: 'is_not' }]), {
      ...within(2),
      personProperties: { plan: 'pro' },
    });

    expect([free, pro]).toEqual([{ matches: false }, { matches: true }]);
  });

  it('are not matched once the server decides a group posthog-node could not: its answer and cause stay', () => {
    const unknownCohort = cohortRef(404);
    const properties = { personProperties: { plan: 'free' } };

    const and = matchPropertyGroup(group('AND', [unknownCohort]), { ...within(2), ...properties });
    const andHolding = matchPropertyGroup(group('AND', [{ ...unknownCohort, operator: 'not_in' }]), {
      ...within(3),
      ...properties,
    });

    // A cohort that can't be evaluated: not a member, posthog-node asks the server.
    expect(and).toEqual({ matches: false, unresolved: 'cohort_not_evaluable' });
    // `not_in` holds, so the AND is not decided yet: the next value (plan gold, false) decides it.
    expect(andHolding).toEqual({ matches: false, unresolved: 'cohort_not_evaluable' });
  });

  it('still count when no value decides before them', () => {
    const gold75 = () =>
      matchPropertyGroup(group('AND', [gold]), { ...within(75), personProperties: { plan: 'gold' } });

    expect(gold75).toThrow(EvaluationBudgetError);
    expect(
      matchPropertyGroup(group('AND', [gold]), { ...within(76), personProperties: { plan: 'gold' } }),
    ).toEqual({ matches: true });
  });
});
