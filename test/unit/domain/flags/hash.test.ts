import { flagHash, holdoutHash } from '../../../../functions/shared/domain/flags/hash';
import { variantForHash } from '../../../../functions/shared/domain/flags/variants';

// Every vector computed by PostHog's algorithm (`_get_hash` in
// `posthog/models/feature_flag/flag_matching.py`) and cross-checked against its decide tests and
// posthog-node's consistency tests.
const fiftyTwentyFiveTwentyFive = [
  { key: 'first-variant', rollout_percentage: 50 },
  { key: 'second-variant', rollout_percentage: 25 },
  { key: 'third-variant', rollout_percentage: 25 },
];

describe('flagHash', () => {
  it.each([
    ['example_id', 0.2093039334578348],
    ['other_id', 0.4345580748910055],
    ['another_id', 0.9656963840044174],
  ])('hashes beta-feature for %s to %d, bit for bit', (identifier, expected) => {
    const hash = flagHash('beta-feature', identifier);

    expect(hash).toBe(expected);
  });

  it('puts example_id in a 30 % and a 50 % rollout, other_id only in 50 %, another_id in neither', () => {
    const hashes = ['example_id', 'other_id', 'another_id'].map((id) => flagHash('beta-feature', id));

    const inRollout = (percentage: number) => hashes.map((hash) => hash <= percentage / 100);

    expect(inRollout(50)).toEqual([true, true, false]);
    expect(inRollout(30)).toEqual([true, false, false]);
  });

  it.each([
    ['example_id', 0.4099865814300066, 'first-variant'],
    ['other_id', 0.9412364075823207, 'third-variant'],
    ['another_id', 0.38749711222934075, 'first-variant'],
  ])(
    'buckets multivariate-flag for %s (salt "variant") at %d: %s',
    (identifier, expectedHash, expectedVariant) => {
      const hash = flagHash('multivariate-flag', identifier, 'variant');

      const variant = variantForHash(fiftyTwentyFiveTwentyFive, hash);

      expect(hash).toBe(expectedHash);
      expect(variant).toBe(expectedVariant);
    },
  );

  it('rolls simple-flag out at 45 % to distinct_id_0…9 exactly as every PostHog SDK does', () => {
    const identifiers = Array.from({ length: 10 }, (_, i) => `distinct_id_${i}`);

    const hashes = identifiers.map((id) => flagHash('simple-flag', id));

    expect(hashes.map((hash) => hash.toFixed(4))).toEqual(
      ['.7837', '.3397', '.3720', '.9076', '.0396', '.9641', '.5623', '.3520', '.7678', '.1425'].map(
        (h) => `0${h}`,
      ),
    );
    expect(hashes.map((hash) => hash <= 0.45)).toEqual([
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

  it('splits multivariate-flag 50/25/25 over distinct_id_0…9 as every PostHog SDK does', () => {
    const identifiers = Array.from({ length: 10 }, (_, i) => `distinct_id_${i}`);

    const variants = identifiers.map((id) =>
      variantForHash(fiftyTwentyFiveTwentyFive, flagHash('multivariate-flag', id, 'variant')),
    );

    expect(variants.map((variant) => variant?.replace('-variant', ''))).toEqual([
      'second',
      'second',
      'first',
      'first',
      'second',
      'second',
      'first',
      'first',
      'second',
      'third',
    ]);
  });

  it.each([
    ['posthog', 0.6279333107440956],
    ['acme', 0.06319250192159755],
  ])('hashes group-flag by the group key %s to %d', (groupKey, expected) => {
    const hash = flagHash('group-flag', groupKey);

    expect(hash).toBe(expected);
  });

  // Values from posthog-node's getFeatureFlagHash, which hashes the UTF-8 bytes.
  it.each([
    ['ñandú-用户', 0.1705984985873907],
    ['😀', 0.633185508762961],
  ])('hashes the UTF-8 bytes of a non-ASCII identifier (%s) as posthog-node does', (identifier, expected) => {
    const hash = flagHash('flag', identifier);

    expect(hash).toBe(expected);
  });
});

describe('holdoutHash', () => {
  // Values from posthog-node's getFeatureFlagHash('holdout', id, '', '-').
  it.each([
    ['example_id', 0.9402003475831224],
    ['other_id', 0.8529512881899236],
    ['another_id', 0.023190326089330436],
  ])('hashes "holdout-%s" to %d, with no flag key in it', (identifier, expected) => {
    const hash = holdoutHash(identifier);

    expect(hash).toBe(expected);
  });
});

describe('variantForHash', () => {
  it('gives each variant the half-open range [min, max) of its share', () => {
    const variants = [
      { key: 'a', rollout_percentage: 50 },
      { key: 'b', rollout_percentage: 50 },
    ];

    const picks = [0, 0.4999999, 0.5, 0.9999999].map((hash) => variantForHash(variants, hash));

    expect(picks).toEqual(['a', 'a', 'b', 'b']);
  });

  it('picks no variant past the last range when the shares sum under 100', () => {
    const variants = [{ key: 'a', rollout_percentage: 40 }];

    const pick = variantForHash(variants, 0.4);

    expect(pick).toBeNull();
  });
});
