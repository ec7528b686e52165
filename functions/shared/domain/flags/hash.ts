import { createHash } from 'node:crypto';

/**
 * PostHog's bucketing hash (`posthog/models/feature_flag/flag_matching.py` `_get_hash`): the first 15 hex digits (60 bits) of a SHA-1, over
 * 0xFFFFFFFFFFFFFFF. The divisor is above Number.MAX_SAFE_INTEGER on purpose: it rounds to 2^60 exactly
 * as Python's float and posthog-node do, so every bucket is bit-identical to theirs.
 */
// eslint-disable-next-line no-loss-of-precision -- see above: the rounding is part of the algorithm.
const LONG_SCALE = 0xfffffffffffffff;

function unitIntervalHash(text: string): number {
  const hex = createHash('sha1').update(text, 'utf8').digest('hex');
  return parseInt(hex.slice(0, 15), 16) / LONG_SCALE;
}

/** `sha1("<flag key>.<identifier><salt>")` as a float in [0, 1]; salt `"variant"` picks variants. */
export function flagHash(flagKey: string, identifier: string, salt = ''): number {
  return unitIntervalHash(`${flagKey}.${identifier}${salt}`);
}

/**
 * Holdouts hash `holdout-<identifier>`, with a dash and no flag key, so that one experiment holdout
 * holds out the same people across every flag that shares it.
 */
export function holdoutHash(identifier: string): number {
  return unitIntervalHash(`holdout-${identifier}`);
}
