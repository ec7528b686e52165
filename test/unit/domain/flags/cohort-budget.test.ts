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
    const started = performance.now();

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
    expect(performance.now() - started).toBeLessThan(500);
  });
});
