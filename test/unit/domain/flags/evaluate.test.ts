import crypto from 'node:crypto';
import { evaluateFlag, evaluateFlags } from '../../../../functions/shared/domain/flags/evaluate';
import { flagHash } from '../../../../functions/shared/domain/flags/hash';
import type {
  FeatureFlag,
  FlagCondition,
  FlagEvaluationInput,
  FlagFilters,
} from '../../../../functions/shared/domain/flags/types';

const everyone: FlagCondition = { properties: [], rollout_percentage: null };
const flag = (key: string, filters: FlagFilters, extra: Partial<FeatureFlag> = {}): FeatureFlag => ({
  id: 1,
  key,
  active: true,
  deleted: false,
  ensure_experience_continuity: false,
  filters,
  ...extra,
});
const person = (distinctId: string, extra: Partial<FlagEvaluationInput> = {}): FlagEvaluationInput => ({
  distinctId,
  now: new Date('2024-01-01T00:00:00Z'),
  ...extra,
});
const fiftyTwentyFiveTwentyFive = {
  variants: [
    { key: 'first-variant', rollout_percentage: 50 },
    { key: 'second-variant', rollout_percentage: 25 },
    { key: 'third-variant', rollout_percentage: 25 },
  ],
};

describe('evaluateFlag for boolean flags', () => {
  it('enables a flag for everyone with "Matched condition set 1" and the "true" payload', () => {
    const everyoneFlag = flag('default-flag', { groups: [everyone], payloads: { true: '{"on":true}' } });

    const result = evaluateFlag(everyoneFlag, person('example_id'));

    expect(result).toEqual({
      key: 'default-flag',
      enabled: true,
      variant: null,
      payload: '{"on":true}',
      reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
      failed: false,
    });
  });

  it.each([
    ['inactive', { active: false }],
    ['deleted', { deleted: true }],
  ])('disables an %s flag without evaluating it', (_state, extra) => {
    const switchedOff = flag('off', { groups: [everyone], payloads: { true: 1 } }, extra);

    const result = evaluateFlag(switchedOff, person('example_id'));

    expect(result).toEqual({
      key: 'off',
      enabled: false,
      variant: null,
      payload: null,
      reason: { code: 'flag_disabled', condition_index: null, description: 'Feature flag is disabled' },
      failed: false,
    });
  });
});

describe('evaluateFlag rollouts', () => {
  const halfRollout = flag('beta-feature', { groups: [{ properties: [], rollout_percentage: 50 }] });

  it('includes the identifiers whose hash is within the rollout (PostHog’s _get_hash)', () => {
    const results = ['example_id', 'other_id', 'another_id'].map((id) =>
      evaluateFlag(halfRollout, person(id)),
    );

    expect(results.map((result) => result.enabled)).toEqual([true, true, false]);
    expect(results[2]!.reason).toEqual({
      code: 'out_of_rollout_bound',
      condition_index: 0,
      description: 'Out of rollout bound',
    });
  });

  it('includes an identifier whose hash is exactly on the boundary, and excludes it just below', () => {
    const hash = flagHash('beta-feature', 'example_id');
    const onBoundary = flag('beta-feature', { groups: [{ properties: [], rollout_percentage: hash * 100 }] });
    const justBelow = flag('beta-feature', {
      groups: [{ properties: [], rollout_percentage: hash * 100 - 1e-12 }],
    });

    const results = [onBoundary, justBelow].map((f) => evaluateFlag(f, person('example_id')).enabled);

    expect(results).toEqual([true, false]);
  });

  it('rolls simple-flag out at 45 % exactly as every PostHog SDK does', () => {
    const simpleFlag = flag('simple-flag', { groups: [{ properties: [], rollout_percentage: 45 }] });

    const results = Array.from({ length: 10 }, (_, i) =>
      evaluateFlag(simpleFlag, person(`distinct_id_${i}`)),
    );

    expect(results.map((result) => result.enabled)).toEqual([
      false,
      true,
      true,
      false,
      true,
      false,
      false,
      true,
      false,
      true,
    ]);
  });

  it('reads a null rollout as 100 % and a 0 % rollout as nobody', () => {
    const full = flag('f', { groups: [{ properties: [], rollout_percentage: null }] });
    const none = flag('f', { groups: [{ properties: [], rollout_percentage: 0 }] });

    const ids = Array.from({ length: 50 }, (_, i) => `user-${i}`);

    expect(ids.every((id) => evaluateFlag(full, person(id)).enabled)).toBe(true);
    expect(ids.some((id) => evaluateFlag(none, person(id)).enabled)).toBe(false);
  });
});

describe('evaluateFlag conditions', () => {
  const proUsers: FlagCondition = {
    properties: [
      { key: 'plan', value: 'pro', type: 'person' },
      { key: 'email', value: '@posthog.com', operator: 'icontains', type: 'person' },
    ],
    rollout_percentage: 100,
  };

  it('requires every property of a condition (AND)', () => {
    const proFlag = flag('pro', { groups: [proUsers] });

    const both = evaluateFlag(
      proFlag,
      person('u', { personProperties: { plan: 'pro', email: 'a@posthog.com' } }),
    );
    const one = evaluateFlag(
      proFlag,
      person('u', { personProperties: { plan: 'pro', email: 'a@gmail.com' } }),
    );

    expect(both.enabled).toBe(true);
    expect(one.reason).toEqual({
      code: 'no_condition_match',
      condition_index: 0,
      description: 'No matching condition set',
    });
  });

  it('matches when any condition matches (OR), reporting that condition from 1', () => {
    const orFlag = flag('or', { groups: [proUsers, { properties: [{ key: 'beta', value: true }] }] });

    const result = evaluateFlag(orFlag, person('u', { personProperties: { beta: 'true' } }));

    expect(result.reason).toEqual({
      code: 'condition_match',
      condition_index: 1,
      description: 'Matched condition set 2',
    });
  });

  it('reports out_of_rollout_bound over no_condition_match, whichever condition saw it', () => {
    const mixed = flag('beta-feature', {
      groups: [{ properties: [], rollout_percentage: 10 }, proUsers],
    });

    const result = evaluateFlag(mixed, person('another_id'));

    expect(result.reason).toEqual({
      code: 'out_of_rollout_bound',
      condition_index: 0,
      description: 'Out of rollout bound',
    });
  });

  it('reports the last of equally telling reasons', () => {
    const twoMisses = flag('f', { groups: [proUsers, proUsers] });

    const result = evaluateFlag(twoMisses, person('u'));

    expect(result.reason.condition_index).toBe(1);
  });

  it('matches person filters against the distinct id too', () => {
    const internal = flag('f', {
      groups: [{ properties: [{ key: 'distinct_id', value: 'ada', type: 'person' }] }],
    });

    const results = ['ada', 'bob'].map((id) => evaluateFlag(internal, person(id)).enabled);

    expect(results).toEqual([true, false]);
  });

  it('reads a legacy flag (no `groups`) as one condition with the flag-level rollout', () => {
    const legacy = flag(
      'beta-feature',
      { properties: [{ key: 'plan', value: 'pro', type: 'person' }] },
      { rollout_percentage: 30 },
    );

    const results = ['example_id', 'other_id'].map(
      (id) => evaluateFlag(legacy, person(id, { personProperties: { plan: 'pro' } })).enabled,
    );

    expect(results).toEqual([true, false]);
  });

  it('reports no_group_type for a flag without conditions, as the flags service does', () => {
    const empty = flag('f', { groups: [] });

    const result = evaluateFlag(empty, person('u'));

    expect(result.reason).toEqual({
      code: 'no_group_type',
      condition_index: null,
      description: 'No group type',
    });
  });

  it('evaluates a cohort filter against the person', () => {
    const cohortFlag = flag('f', { groups: [{ properties: [{ key: 'id', value: 5, type: 'cohort' }] }] });
    const cohorts = { '5': { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } };

    const member = evaluateFlag(cohortFlag, person('u', { cohorts, personProperties: { plan: 'pro' } }));
    const outsider = evaluateFlag(cohortFlag, person('u', { cohorts, personProperties: { plan: 'free' } }));

    expect([member.enabled, outsider.enabled]).toEqual([true, false]);
  });
});

describe('evaluateFlag variants', () => {
  const multivariate = flag('multivariate-flag', {
    groups: [everyone],
    multivariate: fiftyTwentyFiveTwentyFive,
    payloads: { 'first-variant': { color: 'red' }, 'third-variant': 3, true: 'never for a variant' },
  });

  it('picks the variant by the "variant" hash, with its payload (PostHog’s _get_hash)', () => {
    const results = ['example_id', 'other_id', 'another_id'].map((id) =>
      evaluateFlag(multivariate, person(id)),
    );

    expect(results.map((result) => [result.variant, result.payload])).toEqual([
      ['first-variant', { color: 'red' }],
      ['third-variant', 3],
      ['first-variant', { color: 'red' }],
    ]);
  });

  it('splits identifiers across variants in their shares', () => {
    const counts = new Map<string | null, number>();

    for (let i = 0; i < 10000; i++) {
      const { variant } = evaluateFlag(multivariate, person(`user-${i}`));
      counts.set(variant, (counts.get(variant) ?? 0) + 1);
    }

    expect((counts.get('first-variant') ?? 0) / 10000).toBeCloseTo(0.5, 1);
    expect((counts.get('second-variant') ?? 0) / 10000).toBeCloseTo(0.25, 1);
    expect((counts.get('third-variant') ?? 0) / 10000).toBeCloseTo(0.25, 1);
  });

  it("gives a condition's variant override to everyone it matches", () => {
    const overridden = flag('multivariate-flag', {
      groups: [{ properties: [{ key: 'plan', value: 'pro' }], variant: 'second-variant' }],
      multivariate: fiftyTwentyFiveTwentyFive,
    });

    const results = ['example_id', 'other_id'].map(
      (id) => evaluateFlag(overridden, person(id, { personProperties: { plan: 'pro' } })).variant,
    );

    expect(results).toEqual(['second-variant', 'second-variant']);
  });

  it('falls back to the hashed variant when an override names no variant', () => {
    const stale = flag('multivariate-flag', {
      groups: [{ properties: [], variant: 'deleted-variant' }],
      multivariate: fiftyTwentyFiveTwentyFive,
    });

    const result = evaluateFlag(stale, person('other_id'));

    expect(result.variant).toBe('third-variant');
  });

  it('keeps the stored order of conditions, as posthog-node and the flags service do', () => {
    const ordered = flag('multivariate-flag', {
      groups: [everyone, { properties: [], variant: 'second-variant' }],
      multivariate: fiftyTwentyFiveTwentyFive,
    });

    const result = evaluateFlag(ordered, person('other_id'));

    expect(result.variant).toBe('third-variant');
    expect(result.reason.condition_index).toBe(0);
  });

  it('is enabled without a variant when the hash falls past variants summing under 100', () => {
    const short = flag('multivariate-flag', {
      groups: [everyone],
      multivariate: { variants: [{ key: 'only', rollout_percentage: 10 }] },
      payloads: { true: 'boolean payload' },
    });

    const result = evaluateFlag(short, person('other_id'));

    expect([result.enabled, result.variant, result.payload]).toEqual([true, null, 'boolean payload']);
  });
});

describe('evaluateFlag for group flags', () => {
  const groupTypeMapping = { '0': 'organization', '1': 'project' };
  const groupFlag = flag('group-flag', {
    aggregation_group_type_index: 0,
    groups: [{ properties: [], rollout_percentage: 50 }],
  });

  it('buckets by the group key, not the distinct id (PostHog’s _get_hash)', () => {
    const keys = ['acme', 'posthog'];

    const results = keys.map(
      (key) =>
        evaluateFlag(groupFlag, person('example_id', { groups: { organization: key }, groupTypeMapping }))
          .enabled,
    );

    expect(results).toEqual([true, false]);
  });

  it('reads a numeric group key as its text', () => {
    const byNumber = evaluateFlag(groupFlag, person('u', { groups: { organization: 42 }, groupTypeMapping }));
    const byText = evaluateFlag(groupFlag, person('u', { groups: { organization: '42' }, groupTypeMapping }));

    expect(byNumber).toEqual(byText);
  });

  it.each([
    ['the request names no group of its type', { groups: { project: 'p1' }, groupTypeMapping }],
    ['the project has no such group type', { groups: { organization: 'acme' }, groupTypeMapping: {} }],
  ])('is no_group_type when %s', (_case, extra) => {
    const result = evaluateFlag(groupFlag, person('u', extra));

    expect(result).toMatchObject({
      enabled: false,
      reason: { code: 'no_group_type', condition_index: 0, description: 'No group type' },
    });
  });

  it("matches group properties, including `$group_key`, and not the person's", () => {
    const techOrgs = flag('f', {
      aggregation_group_type_index: 0,
      groups: [
        {
          properties: [
            { key: 'industry', value: 'tech', type: 'group', group_type_index: 0 },
            { key: '$group_key', value: 'acme', type: 'group', group_type_index: 0 },
          ],
        },
      ],
    });
    const input = (industry: string) =>
      person('u', {
        groups: { organization: 'acme' },
        groupTypeMapping,
        groupProperties: { organization: { industry } },
        personProperties: { industry: 'tech' },
      });

    const results = ['tech', 'food'].map((industry) => evaluateFlag(techOrgs, input(industry)).enabled);

    expect(results).toEqual([true, false]);
  });

  it('says group conditions were skipped when person conditions of a mixed flag miss', () => {
    const mixed = flag('f', {
      groups: [
        { properties: [{ key: 'plan', value: 'pro', type: 'person' }] },
        { properties: [], aggregation_group_type_index: 1 },
      ],
    });

    const result = evaluateFlag(mixed, person('u', { personProperties: { plan: 'free' }, groupTypeMapping }));

    expect(result.reason).toEqual({
      code: 'no_condition_match',
      condition_index: 0,
      description:
        'No matching condition set (group conditions were not evaluated because no group type was provided)',
    });
  });

  it('matches a mixed flag by its group condition when the group is named', () => {
    const mixed = flag('f', {
      groups: [
        { properties: [{ key: 'plan', value: 'pro', type: 'person' }] },
        { properties: [], aggregation_group_type_index: 1 },
      ],
    });

    const result = evaluateFlag(mixed, person('u', { groups: { project: 'p1' }, groupTypeMapping }));

    expect(result.reason.condition_index).toBe(1);
  });
});

describe('evaluateFlag payloads', () => {
  it('returns the stored payload as it is, and none for a disabled flag', () => {
    const withPayload = flag('beta-feature', {
      groups: [{ properties: [], rollout_percentage: 50 }],
      payloads: { true: '{"discount":10}' },
    });

    const results = ['example_id', 'another_id'].map((id) => evaluateFlag(withPayload, person(id)).payload);

    expect(results).toEqual(['{"discount":10}', null]);
  });

  it("returns null when the flag has no payload for its value, even for a key on Object's prototype", () => {
    const noPayload = flag('f', {
      groups: [{ properties: [], variant: 'constructor' }],
      multivariate: { variants: [{ key: 'constructor', rollout_percentage: 100 }] },
      payloads: {},
    });

    const result = evaluateFlag(noPayload, person('u'));

    expect([result.variant, result.payload]).toEqual(['constructor', null]);
  });
});

describe('evaluateFlag with experience continuity', () => {
  const continuityFlag = flag(
    'multivariate-flag',
    { groups: [everyone], multivariate: fiftyTwentyFiveTwentyFive },
    { ensure_experience_continuity: true },
  );

  it('hashes the stored hash key instead of the distinct id', () => {
    const identified = person('other_id', { hashKeyOverrides: { 'multivariate-flag': 'example_id' } });

    const withOverride = evaluateFlag(continuityFlag, identified);
    const without = evaluateFlag(continuityFlag, person('other_id'));

    expect([withOverride.variant, without.variant]).toEqual(['first-variant', 'third-variant']);
  });

  it('keeps the rollout of the stored hash key too', () => {
    const rollout = flag('beta-feature', { groups: [{ properties: [], rollout_percentage: 50 }] });

    const result = evaluateFlag(
      rollout,
      person('another_id', { hashKeyOverrides: { 'beta-feature': 'example_id' } }),
    );

    expect(result.enabled).toBe(true);
  });

  it('ignores hash keys stored for other flags', () => {
    const result = evaluateFlag(
      continuityFlag,
      person('other_id', { hashKeyOverrides: { 'another-flag': 'example_id' } }),
    );

    expect(result.variant).toBe('third-variant');
  });
});

describe('evaluateFlag holdouts', () => {
  const experiment = flag('experiment', {
    groups: [everyone],
    multivariate: {
      variants: [
        { key: 'control', rollout_percentage: 50 },
        { key: 'test', rollout_percentage: 50 },
      ],
    },
    holdout: { id: 7, exclusion_percentage: 50 },
    payloads: { 'holdout-7': 'held out' },
  });

  it('gives held-out identifiers the holdout variant before any condition', () => {
    const result = evaluateFlag(experiment, person('another_id'));

    expect(result).toEqual({
      key: 'experiment',
      enabled: true,
      variant: 'holdout-7',
      payload: 'held out',
      reason: {
        code: 'holdout_condition_value',
        condition_index: null,
        description: 'Holdout condition value',
      },
      failed: false,
    });
  });

  it('evaluates everyone else as usual', () => {
    const result = evaluateFlag(experiment, person('example_id'));

    expect(result.reason.code).toBe('condition_match');
    expect(['control', 'test']).toContain(result.variant);
  });

  it('reads the earlier holdout_groups form: its rollout, then its variant', () => {
    const legacy = flag('experiment', {
      groups: [everyone],
      holdout_groups: [{ properties: [], rollout_percentage: 10, variant: 'holdout' }],
    });

    const results = ['another_id', 'example_id'].map((id) => evaluateFlag(legacy, person(id)).variant);

    expect(results).toEqual(['holdout', null]);
  });
});

describe('evaluateFlag early access', () => {
  const closed: FlagCondition = { properties: [], rollout_percentage: 0 };

  it("lets the person's enrollment decide the flag, whatever its conditions", () => {
    const feature = flag('new-editor', {
      groups: [closed],
      feature_enrollment: true,
      payloads: { true: 'hi' },
    });
    const enrolled = person('u', { personProperties: { '$feature_enrollment/new-editor': true } });
    const optedOut = person('u', { personProperties: { '$feature_enrollment/new-editor': false } });

    const results = [enrolled, optedOut].map((input) => evaluateFlag(feature, input));

    expect(results.map((result) => [result.enabled, result.payload, result.reason])).toEqual([
      [
        true,
        'hi',
        { code: 'super_condition_value', condition_index: 0, description: 'Super condition value' },
      ],
      [
        false,
        null,
        { code: 'super_condition_value', condition_index: 0, description: 'Super condition value' },
      ],
    ]);
  });

  it('falls back to the conditions for a person who never enrolled', () => {
    const feature = flag('new-editor', { groups: [closed], feature_enrollment: true });

    const result = evaluateFlag(feature, person('u'));

    expect(result.reason.code).toBe('out_of_rollout_bound');
  });

  it('reads the legacy super_groups form once its property is set on the person', () => {
    const feature = flag('new-editor', {
      groups: [closed],
      super_groups: [
        { properties: [{ key: '$feature_enrollment/new-editor', value: ['true'] }], rollout_percentage: 100 },
      ],
    });

    const enrolled = evaluateFlag(
      feature,
      person('u', { personProperties: { '$feature_enrollment/new-editor': true } }),
    );
    const unset = evaluateFlag(feature, person('u'));

    expect([enrolled.enabled, enrolled.reason.code, unset.reason.code]).toEqual([
      true,
      'super_condition_value',
      'out_of_rollout_bound',
    ]);
  });
});

describe('evaluateFlag with early_exit', () => {
  const conditions = [
    { properties: [{ key: 'plan', value: 'pro' }], rollout_percentage: 10 },
    { properties: [], rollout_percentage: 100 },
  ];

  it('stops at a condition whose properties match but whose rollout excludes the identifier', () => {
    const stopping = flag('beta-feature', { groups: conditions, early_exit: true });
    const continuing = flag('beta-feature', { groups: conditions });
    const pro = person('another_id', { personProperties: { plan: 'pro' } });

    const results = [stopping, continuing].map((f) => evaluateFlag(f, pro).enabled);

    expect(results).toEqual([false, true]);
  });
});

describe('evaluateFlag bucketed by device', () => {
  const byDevice = flag(
    'beta-feature',
    { groups: [{ properties: [], rollout_percentage: 50 }] },
    { bucketing_identifier: 'device_id' },
  );

  it('hashes the device id instead of the distinct id', () => {
    const results = ['example_id', 'another_id'].map(
      (deviceId) => evaluateFlag(byDevice, person('same-person', { deviceId })).enabled,
    );

    expect(results).toEqual([true, false]);
  });

  it('skips the condition as out of rollout when no device id is known', () => {
    const result = evaluateFlag(byDevice, person('example_id'));

    expect(result.reason).toEqual({
      code: 'out_of_rollout_bound',
      condition_index: 0,
      description: 'Out of rollout bound',
    });
  });
});

describe('evaluateFlag where posthog-node would not decide locally', () => {
  it('passes over a condition with an absent property when a later one decides, as posthog-node does', () => {
    const sdkDecides = flag('multivariate-flag', {
      groups: [
        { properties: [{ key: 'plan', value: 'free', operator: 'is_not' }], variant: 'second-variant' },
        everyone,
      ],
      multivariate: fiftyTwentyFiveTwentyFive,
    });

    const result = evaluateFlag(sdkDecides, person('other_id'));

    expect([result.variant, result.reason.condition_index, result.unresolved]).toEqual([
      'third-variant',
      1,
      undefined,
    ]);
  });

  it("answers with the server's rules when no later condition decides, and says so", () => {
    const serverDecides = flag('multivariate-flag', {
      groups: [
        { properties: [{ key: 'plan', value: 'free', operator: 'is_not' }], variant: 'second-variant' },
      ],
      multivariate: fiftyTwentyFiveTwentyFive,
    });

    const result = evaluateFlag(serverDecides, person('other_id'));

    expect([result.variant, result.unresolved]).toEqual(['second-variant', ['missing_property']]);
  });

  it('counts nobody in a cohort it has no definition for, and says so', () => {
    const staticCohort = flag('f', {
      groups: [{ properties: [{ key: 'id', value: 12, type: 'cohort' }] }, everyone],
    });

    const result = evaluateFlag(staticCohort, person('u'));

    expect([result.enabled, result.reason.condition_index, result.unresolved]).toEqual([
      true,
      1,
      ['cohort_not_evaluable'],
    ]);
  });
});

describe('evaluateFlag failures', () => {
  it('fails a malformed flag instead of throwing', () => {
    const malformed = flag('broken', { groups: 'not a list' } as unknown as FlagFilters);

    const result = evaluateFlag(malformed, person('u'));

    expect(result).toEqual({
      key: 'broken',
      enabled: false,
      variant: null,
      payload: null,
      reason: { code: 'unknown', condition_index: null, description: null },
      failed: true,
    });
  });

  it('fails a flag whose cohort contains itself', () => {
    const cyclic = flag('cyclic', { groups: [{ properties: [{ key: 'id', value: 1, type: 'cohort' }] }] });
    const cohorts = { '1': { type: 'AND', values: [{ key: 'id', value: 1, type: 'cohort' }] } };

    const result = evaluateFlag(cyclic, person('u', { cohorts }));

    expect([result.failed, result.reason.code]).toEqual([true, 'dependency_cycle_cohort']);
  });
});

describe('evaluateFlags', () => {
  it('evaluates every live flag, keyed by flag key, leaving out deleted and inactive ones', () => {
    const flags = [
      flag('on', { groups: [everyone] }),
      flag('off', { groups: [everyone] }, { active: false }),
      flag('gone', { groups: [everyone] }, { deleted: true }),
      flag('beta-feature', { groups: [{ properties: [], rollout_percentage: 50 }] }),
    ];

    const result = evaluateFlags(flags, person('another_id'));

    expect(Object.keys(result.flags)).toEqual(['on', 'beta-feature']);
    expect([result.flags['on']!.enabled, result.flags['beta-feature']!.enabled]).toEqual([true, false]);
    expect(result.errorsWhileComputingFlags).toBe(false);
  });

  it('isolates a failing flag: the others are evaluated and the response says errors occurred', () => {
    const flags = [
      flag('broken', { groups: [{ properties: [], rollout_percentage: '50' }] } as unknown as FlagFilters),
      flag('fine', { groups: [everyone] }),
    ];

    const result = evaluateFlags(flags, person('u'));

    expect(result.errorsWhileComputingFlags).toBe(true);
    expect([result.flags['broken']!.failed, result.flags['fine']!.enabled]).toEqual([true, true]);
  });

  it('keeps a flag keyed `__proto__` as an ordinary entry', () => {
    const flags = [flag('__proto__', { groups: [everyone] })];

    const result = evaluateFlags(flags, person('u'));

    expect(Object.keys(result.flags)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(result.flags)).toBe(Object.prototype);
  });

  /** A property bag that counts how often its keys are listed (each copy of it lists them once). */
  const countingListings = (properties: Record<string, unknown>) => {
    const counter = { listings: 0 };
    const bag = new Proxy(properties, {
      ownKeys: (target) => {
        counter.listings += 1;
        return Reflect.ownKeys(target);
      },
    });
    return { bag, counter };
  };
  const manyProperties = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`key_${i}`, i]));

  it("copies the request's person properties once, not once per flag", () => {
    const { bag, counter } = countingListings({ ...manyProperties, plan: 'pro' });
    const flags = Array.from({ length: 50 }, (_, i) =>
      flag(`pro-${i}`, { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }] }),
    );

    const result = evaluateFlags(flags, person('u', { personProperties: bag }));

    expect(Object.values(result.flags).every((flagResult) => flagResult.enabled)).toBe(true);
    expect(counter.listings).toBe(1);
  });

  it("copies each group's properties once, not once per condition of every group flag", () => {
    const { bag, counter } = countingListings({ ...manyProperties, plan: 'enterprise' });
    const conditions = Array.from({ length: 10 }, (_, i) => ({
      properties: [{ key: 'plan', value: i === 9 ? 'enterprise' : `plan-${i}`, type: 'group' }],
      rollout_percentage: 100,
    }));
    const flags = Array.from({ length: 20 }, (_, i) =>
      flag(`group-${i}`, { aggregation_group_type_index: 0, groups: conditions }),
    );

    const result = evaluateFlags(
      flags,
      person('u', {
        groups: { company: 'acme' },
        groupProperties: { company: bag },
        groupTypeMapping: { '0': 'company' },
      }),
    );

    expect(Object.values(result.flags).every((flagResult) => flagResult.enabled)).toBe(true);
    expect(counter.listings).toBe(1);
  });

  describe("derives each value's text once for every filter on it", () => {
    afterEach(() => jest.restoreAllMocks());
    const conditionsOn = (operator: string, values: (i: number) => unknown) =>
      Array.from({ length: 50 }, (_, i) => ({
        properties: [{ key: 'url', operator, value: values(i), type: 'person' }],
      })) as FlagCondition[];

    it('folds a long value once for every icontains condition on its key', () => {
      const url = 'HTTPS://EXAMPLE.COM/'.repeat(100); // 1,400 capitals, each folded by its own call
      const lowered = jest.spyOn(String.prototype, 'toLowerCase');
      const flags = [flag('no-match', { groups: conditionsOn('icontains', (i) => `path-${i}`) })];

      const result = evaluateFlags(flags, person('u', { personProperties: { url } }));

      expect(result.flags['no-match']!.enabled).toBe(false);
      // Each capital once (1,400), not once per condition (70,000).
      expect(lowered.mock.calls.length).toBeLessThan(2 * 1400);
    });

    it('serializes an object value once for every exact condition on its key', () => {
      const url = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`part_${i}`, i]));
      const stringified = jest.spyOn(JSON, 'stringify');
      const flags = [flag('no-match', { groups: conditionsOn('exact', (i) => `value-${i}`) })];

      const result = evaluateFlags(flags, person('u', { personProperties: { url } }));

      expect(result.flags['no-match']!.enabled).toBe(false);
      // Each key once (500), not once per condition (25,000).
      expect(stringified.mock.calls.length).toBeLessThan(2 * 500);
    });
  });

  it("hashes a flag's bucketing identifier once for all of its conditions", () => {
    const sha1 = jest.spyOn(crypto, 'createHash');
    const conditions = Array.from({ length: 50 }, () => ({ properties: [], rollout_percentage: 0 }));
    const flags = [flag('none-rolled-out', { aggregation_group_type_index: 0, groups: conditions })];

    const result = evaluateFlags(
      flags,
      person('u', { groups: { company: 'k'.repeat(10_000) }, groupTypeMapping: { '0': 'company' } }),
    );
    const hashes = sha1.mock.calls.length;
    sha1.mockRestore();

    expect(result.flags['none-rolled-out']!.enabled).toBe(false);
    // The group key (any length the request chooses) hashed once, not once per condition.
    expect(hashes).toBe(1);
  });
});
