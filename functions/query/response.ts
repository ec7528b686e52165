import { createHash } from 'node:crypto';

/**
 * The fields PostHog's cached query responses carry besides the kind's own (`CachedQueryResponseMixin`
 * in posthog/schema.py): the cache's and the project's timezone.
 */

/** How long a HogQL result counts as fresh for PostHog (its "day" staleness threshold). */
export const cacheTargetAgeMs = 6 * 3_600_000;
/**
 * How long a result counts as fresh for `lazy_async` (PostHog's `ThresholdMode.LAZY`,
 * posthog/caching/utils.py), within the cache's 24 h.
 */
export const lazyCacheTargetAgeMs = 12 * 3_600_000;
/** How soon a client may ask PostHog to recompute a HogQL result. */
const clientRefreshMs = 60_000;

export interface ResponseMeta {
  readonly cacheKey: string;
  readonly hogql: string | null;
  readonly isCached: boolean;
  readonly lastRefresh: Date;
  readonly timezone: string;
  /** The async run of the same query, when a stale cached result is answered while it recomputes. */
  readonly queryStatus?: Record<string, unknown>;
}

/** PostHog's cache key: `cache_<team>_<sha256 of what the result depends on>`. */
export function cacheKeyOf(projectId: number, parts: unknown): string {
  const hash = createHash('sha256').update(normalisedJson(parts)).digest('hex');
  return `cache_${projectId}_${hash}`;
}

/**
 * JSON with every object's own keys sorted, so two spellings of one query (`{a, b}`, `{b, a}`) make
 * one cache key. Linear in the (already size-bounded) request body.
 */
export function normalisedJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? Object.fromEntries(
          Object.keys(item)
            .sort()
            .map((key) => [key, (item as Record<string, unknown>)[key]]),
        )
      : item,
  );
}

/** The kind's `result` with the envelope, keys in alphabetical order as PostHog's pydantic models dump them. */
export function queryResponse(result: Record<string, unknown>, meta: ResponseMeta): Record<string, unknown> {
  const refreshed = meta.lastRefresh.getTime();
  const body: Record<string, unknown> = {
    cache_key: meta.cacheKey,
    cache_target_age: new Date(refreshed + cacheTargetAgeMs).toISOString(),
    calculation_trigger: null,
    error: null,
    hogql: meta.hogql,
    is_cached: meta.isCached,
    last_refresh: meta.lastRefresh.toISOString(),
    modifiers: {},
    next_allowed_client_refresh: new Date(refreshed + clientRefreshMs).toISOString(),
    query_metadata: null,
    query_status: meta.queryStatus ?? null,
    resolved_date_range: null,
    timezone: meta.timezone,
    timings: null,
    ...result,
  };
  return sortedKeys(body);
}

/** `body` with its keys in alphabetical order, as PostHog's pydantic models dump them. */
export function sortedKeys(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(body)
      .sort()
      .map((key) => [key, body[key]]),
  );
}
