import type { RequestEvaluation } from '../../../functions/flags/evaluation';
import { decideResponse, flagsResponse } from '../../../functions/flags/responses';
import type { FeatureFlagRecord } from '../../../functions/shared/db/feature-flags';
import type { FlagEvaluationResult } from '../../../functions/shared/domain/flags';

const record = (id: number, key: string, name = ''): FeatureFlagRecord => ({
  id,
  team_id: 1,
  key,
  name,
  filters: { groups: [{}] },
  active: true,
  deleted: false,
  ensure_experience_continuity: false,
  is_remote_configuration: false,
  rollout_percentage: null,
  created_at: '2026-11-21T00:00:00.000Z',
  created_by: null,
  updated_at: '2026-11-21T00:00:00.000Z',
  version: id + 1,
});

const matched = {
  code: 'condition_match',
  condition_index: 0,
  description: 'Matched condition set 1',
} as const;
const result = (fields: Partial<FlagEvaluationResult> & { key: string }): FlagEvaluationResult => ({
  enabled: true,
  variant: null,
  payload: null,
  reason: matched,
  failed: false,
  ...fields,
});

/** One flag of each kind: enabled with a payload, a variant with an object payload, off, failed. */
const evaluation: RequestEvaluation = {
  flags: [record(1, 'on', 'On'), record(2, 'variant'), record(3, 'off'), record(4, 'broken')],
  results: Object.fromEntries(
    [
      result({ key: 'on', payload: '{"a": 1}' }),
      result({ key: 'variant', variant: 'test', payload: { color: 'blue' } }),
      result({
        key: 'off',
        enabled: false,
        reason: { code: 'out_of_rollout_bound', condition_index: 0, description: 'Out of rollout bound' },
      }),
      result({
        key: 'broken',
        enabled: false,
        failed: true,
        reason: { code: 'unknown', condition_index: null, description: null },
      }),
    ].map((r) => [r.key, r]),
  ),
  errorsWhileComputingFlags: true,
};

const config = {
  config: { enable_collect_everything: true },
  editorParams: {},
  toolbarParams: {},
  isAuthenticated: false,
  supportedCompression: ['gzip', 'gzip-js', 'lz64'],
  sessionRecording: false,
  autocapture_opt_out: false,
  siteApps: [],
};

const now = 1795288378449;

describe('decide response shapes (posthog/api/decide.py)', () => {
  it('v1: the keys of enabled flags', () => {
    expect(decideResponse(1, evaluation, now)).toEqual({ ...config, featureFlags: ['on', 'variant'] });
  });

  it('v2: enabled flags only, true or the variant', () => {
    expect(decideResponse(2, evaluation, now)).toEqual({
      ...config,
      featureFlags: { on: true, variant: 'test' },
    });
  });

  it('v3: every flag, errors, and the stored payloads of enabled flags', () => {
    expect(decideResponse(3, evaluation, now)).toEqual({
      ...config,
      featureFlags: { on: true, variant: 'test', off: false, broken: false },
      errorsWhileComputingFlags: true,
      featureFlagPayloads: { on: '{"a": 1}', variant: { color: 'blue' } },
    });
  });

  it('v4: per-flag details with a JSON-text payload, `failed` only on failed flags', () => {
    // Act
    const body = decideResponse(4, evaluation, now);

    // Assess
    expect(body).toEqual({
      ...config,
      flags: {
        on: {
          key: 'on',
          enabled: true,
          variant: null,
          reason: matched,
          metadata: { id: 1, version: 2, description: 'On', payload: '{"a": 1}' },
        },
        variant: {
          key: 'variant',
          enabled: true,
          variant: 'test',
          reason: matched,
          metadata: { id: 2, version: 3, description: '', payload: '{"color":"blue"}' },
        },
        off: {
          key: 'off',
          enabled: false,
          variant: null,
          reason: { code: 'out_of_rollout_bound', condition_index: 0, description: 'Out of rollout bound' },
          metadata: { id: 3, version: 4, description: '', payload: null },
        },
        broken: {
          key: 'broken',
          enabled: false,
          variant: null,
          reason: { code: 'unknown', condition_index: null, description: null },
          metadata: { id: 4, version: 5, description: '', payload: null },
          failed: true,
        },
      },
      errorsWhileComputingFlags: true,
      requestId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/),
      evaluatedAt: now,
    });
    expect(decideResponse(9, evaluation, now)).toMatchObject({ flags: (body as { flags: unknown }).flags });
  });
});

describe('/flags response shapes', () => {
  it('v2 and up: the detailed shape without decide’s config', () => {
    // Act
    const body = flagsResponse(2, evaluation, now);

    // Assess
    expect(Object.keys(body)).toEqual(['flags', 'errorsWhileComputingFlags', 'requestId', 'evaluatedAt']);
    expect(body).toMatchObject({
      flags: (decideResponse(4, evaluation, now) as { flags: unknown }).flags,
      evaluatedAt: now,
    });
  });

  it('v1: FlagsV1, every flag and the payloads, with a request id', () => {
    expect(flagsResponse(1, evaluation, now)).toEqual({
      featureFlags: { on: true, variant: 'test', off: false, broken: false },
      featureFlagPayloads: { on: '{"a": 1}', variant: { color: 'blue' } },
      errorsWhileComputingFlags: true,
      requestId: expect.any(String),
      evaluatedAt: now,
    });
  });

  it('keeps a flag keyed __proto__ an ordinary entry', () => {
    // Prepare
    const proto: RequestEvaluation = {
      flags: [record(1, '__proto__')],
      results: Object.fromEntries([['__proto__', result({ key: '__proto__' })]]),
      errorsWhileComputingFlags: false,
    };

    // Act
    const body = flagsResponse(1, proto, now);

    // Assess
    expect(Object.keys((body as { featureFlags: object }).featureFlags)).toEqual(['__proto__']);
    expect(JSON.parse(JSON.stringify(body)).featureFlags).toEqual(JSON.parse('{"__proto__": true}'));
  });
});
