import { checkDynamicBound, checkExpansion } from '../../../functions/cohorts/limits';
import type { CohortRecord } from '../../../functions/shared/db/cohorts';
import type { FeatureFlagRecord } from '../../../functions/shared/db/feature-flags';
import { CohortGraph } from '../../../functions/shared/domain/cohorts/graph';
import { cohortLimits } from '../../../functions/shared/domain/cohorts/limits';
import { ValidationError } from '../../../functions/shared/http/errors';

const and = (values: unknown[]) => ({ properties: { type: 'AND', values } });
const gold = { key: 'plan', type: 'person', value: 'gold' };
const refs = (id: number, times: number) =>
  Array.from({ length: times }, () => ({ key: 'id', type: 'cohort', value: id }));
const cohort = (id: number, filters: Record<string, unknown>, extra: Partial<CohortRecord> = {}) =>
  ({ id, name: `c${id}`, deleted: false, is_static: false, filters, groups: [], ...extra }) as CohortRecord;
const flagOn = (ids: number[]) =>
  ({
    key: 'f',
    active: true,
    deleted: false,
    filters: { groups: [{ properties: ids.flatMap((id) => refs(id, 1)) }] },
  }) as unknown as FeatureFlagRecord;

describe('the expanded size of cohorts', () => {
  it('counts each nested cohort as often as it is named, static and deleted ones as their filter only', () => {
    const graph = new CohortGraph([
      cohort(1, and([gold, gold])),
      cohort(2, and([...refs(1, 3), ...refs(9, 2), ...refs(8, 1)])),
      cohort(3, and(refs(2, 2))),
      cohort(9, and([gold]), { is_static: true }),
      cohort(8, and([gold]), { deleted: true }),
    ]);

    // 1: group + 2 filters; 2: group + 6 filters + 3 × 3; 3: group + 2 filters + 2 × 16.
    expect([1, 2, 3].map((id) => graph.expandedSize(id))).toEqual([3, 16, 35]);
  });

  it('follows a chain of 100,000 cohorts without overflowing the stack, and stops at a loop', () => {
    const chain = Array.from({ length: 100_000 }, (_, n) => cohort(n + 1, and(refs(n + 2, 1))));
    chain.push(cohort(100_001, and(refs(1, 1))));

    expect(new CohortGraph(chain).expandedSize(1)).toBe(200_002);
  });

  it('lists the live dynamic cohorts that reach a cohort, however indirectly', () => {
    const graph = new CohortGraph([
      cohort(1, and([gold])),
      cohort(2, and(refs(1, 2))),
      cohort(3, and(refs(2, 1))),
      cohort(4, and(refs(3, 1)), { deleted: true }),
      cohort(5, and([gold])),
    ]);

    expect(graph.reaching(1).sort()).toEqual([2, 3]);
  });
});

describe('checkExpansion', () => {
  const level1 = cohort(1, and([gold]));
  const level2 = cohort(2, and(refs(1, 200)));

  it('refuses a cohort whose expansion exceeds the cap, with attr filters', () => {
    const attempt = () => checkExpansion(cohort(3, and(refs(2, 200))), [level1, level2], []);

    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(/120401 filters and groups.*at most 10000/);
  });

  it('refuses a change below that grows a cohort naming it, or a flag using it, past the cap', () => {
    const level3 = cohort(3, and(refs(2, 16)));
    // Cohort 2 grows from 601 to 8,401; cohort 3 from 9,633 to 134,433; the flag from 1,204 to 16,804.
    const grown = cohort(1, and(Array(40).fill(gold)));

    const forCohort = () => checkExpansion(grown, [level1, level2, level3], []);
    const forFlag = () => checkExpansion(grown, [level1, level2], [flagOn([2, 2])]);

    expect(forCohort).toThrow(/Cohort 3 \(c3\) names this one/);
    expect(forFlag).toThrow(/feature flag "f"/);
  });

  it('lets a cohort stored beyond the cap be made smaller', () => {
    const oversized = cohort(3, and(refs(2, 200)));

    expect(() => checkExpansion(cohort(3, and(refs(2, 100))), [level1, level2, oversized], [])).not.toThrow();
  });
});

describe('checkDynamicBound', () => {
  const project = (dynamic: number, extra: CohortRecord[] = []) => [
    ...Array.from({ length: dynamic }, (_, n) => cohort(n + 1, and([gold]))),
    ...extra,
  ];

  it(`allows up to ${cohortLimits.dynamicPerProject} live dynamic cohorts in a project`, () => {
    const others = [
      cohort(9001, and([gold]), { is_static: true }),
      cohort(9002, and([gold]), { deleted: true }),
    ];

    expect(() => checkDynamicBound(0, project(cohortLimits.dynamicPerProject - 1, others))).not.toThrow();
    expect(() => checkDynamicBound(1, project(cohortLimits.dynamicPerProject))).not.toThrow();
  });

  it('refuses one more with a 400', () => {
    const attempt = () => checkDynamicBound(0, project(cohortLimits.dynamicPerProject));

    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(/at most 500 dynamic cohorts/);
  });
});
