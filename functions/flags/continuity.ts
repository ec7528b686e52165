import type { HashKeyOverrides } from '../shared/db/flag-overrides';
import { addHashKeyOverrides, readHashKeyOverrides } from '../shared/db/flag-overrides';

/**
 * Experience continuity (`posthog/models/feature_flag/flag_matching.py`): the hash keys continuity flags are bucketed on for a request.
 *
 * Without `$anon_distinct_id` the distinct id's stored overrides apply. With it (posthog-js sends it
 * right after identify), every continuity flag that neither id has an override for gets
 * `$anon_distinct_id` as its hash key, so the user keeps the buckets they had while anonymous; an
 * override one id already has is copied to the other, as PostHog's person-level overrides are shared
 * by all of a person's ids. The request's own distinct id wins where both ids have one.
 */
export async function hashKeyOverridesFor(
  tableName: string,
  projectId: number,
  distinctId: string,
  anonDistinctId: string | undefined,
  continuityKeys: readonly string[],
): Promise<HashKeyOverrides> {
  const other = anonDistinctId !== undefined && anonDistinctId !== distinctId ? anonDistinctId : undefined;
  const stored = await readHashKeyOverrides(tableName, projectId, other ? [distinctId, other] : [distinctId]);
  const own = stored.get(distinctId) ?? {};
  const anon = (other && stored.get(other)) || {};
  if (anonDistinctId === undefined) return own;

  const wanted: HashKeyOverrides = {};
  for (const key of continuityKeys) wanted[key] = own[key] ?? anon[key] ?? anonDistinctId;
  const missingFrom = (overrides: HashKeyOverrides): HashKeyOverrides =>
    Object.fromEntries(Object.entries(wanted).filter(([key]) => !Object.hasOwn(overrides, key)));
  const missingOwn = missingFrom(own);
  const missingAnon = other ? missingFrom(anon) : {};
  const [ownNow, anonNow] = await Promise.all([
    Object.keys(missingOwn).length > 0
      ? addHashKeyOverrides(tableName, projectId, distinctId, missingOwn)
      : own,
    other && Object.keys(missingAnon).length > 0
      ? addHashKeyOverrides(tableName, projectId, other, missingAnon)
      : anon,
  ]);
  // What was stored wins over what this request wanted: a concurrent request may have written first.
  return { ...wanted, ...anonNow, ...ownNow };
}
