import { flagHash } from './hash';
import type { FeatureFlag, MultivariateVariant } from './types';

/**
 * Variants own consecutive ranges [min, max) of the variant hash, in their listed order, each
 * `rollout_percentage / 100` wide. The running sum is accumulated exactly as PostHog does, so range
 * edges round the same way. A hash past the last range (variants summing under 100) picks none.
 */
export function variantForHash(variants: readonly MultivariateVariant[], hash: number): string | null {
  let min = 0;
  for (const variant of variants) {
    const max = min + variant.rollout_percentage / 100;
    if (hash >= min && hash < max) return variant.key;
    min = max;
  }
  return null;
}

export function variantsOf(flag: FeatureFlag): readonly MultivariateVariant[] {
  const variants: unknown = flag.filters.multivariate?.variants ?? [];
  if (!Array.isArray(variants)) throw new TypeError(`flag ${flag.key}: multivariate.variants is not a list`);
  return variants as readonly MultivariateVariant[];
}

/** The variant a bucketing identifier falls into (salt `"variant"`), or null for a boolean flag. */
export function hashedVariant(flag: FeatureFlag, identifier: string): string | null {
  const variants = variantsOf(flag);
  if (variants.length === 0) return null;
  return variantForHash(variants, flagHash(flag.key, identifier, 'variant'));
}

/** A condition's variant override wins only when it names an existing variant; else the hash decides. */
export function matchedVariant(
  flag: FeatureFlag,
  override: string | null | undefined,
  identifier: string,
): string | null {
  if (override && variantsOf(flag).some((variant) => variant.key === override)) return override;
  return hashedVariant(flag, identifier);
}
