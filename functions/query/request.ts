import * as z from 'zod';

/** PostHog's `RefreshType` (frontend/src/queries/schema/schema-general.ts). */
export const refreshModes = [
  'blocking',
  'async',
  'async_except_on_cache_miss',
  'lazy_async',
  'force_blocking',
  'force_async',
  'force_cache',
] as const;

/** A query node: its `kind` says which; each kind's fields are checked by its own runner. */
export const queryNodeSchema = z.looseObject({ kind: z.string().min(1).max(100) });
export type QueryNode = z.output<typeof queryNodeSchema>;

/** PostHog's `QueryRequest`: the fields Flock reads (others, as `name` or `filters_override`, are ignored). */
export const queryRequestSchema = z.looseObject({
  query: queryNodeSchema,
  refresh: z.enum(refreshModes).nullish(),
  /** Deprecated: `true` means `refresh: 'async'`. */
  async: z.boolean().nullish(),
  client_query_id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, 'Expected letters, digits, "-" or "_", at most 128')
    .nullish(),
  name: z.string().max(1024).nullish(),
});

/** `HogQLQuery`: the text; `values`, `filters` and `variables` only serve placeholders, which Flock refuses. */
export const hogqlQuerySchema = z.looseObject({
  kind: z.literal('HogQLQuery'),
  query: z.string(),
});

export type RefreshMode = (typeof refreshModes)[number];

/**
 * The request's mode as PostHog's `/query/` runs it: `force_cache` and no mode at all are `blocking`
 * (its view remaps them: on this endpoint a stale result is always recomputed), and the deprecated
 * `async: true` without a mode is `async`.
 */
export function refreshModeOf(request: {
  refresh?: RefreshMode | null;
  async?: boolean | null;
}): RefreshMode {
  if (request.refresh && request.refresh !== 'force_cache') return request.refresh;
  return request.async && !request.refresh ? 'async' : 'blocking';
}

/** Whether a mode may answer from the cache: every mode but the `force_` ones that recompute. */
export function readsCache(mode: RefreshMode): boolean {
  return mode !== 'force_blocking' && mode !== 'force_async';
}

/**
 * Whether a mode computes in the background rather than within the request when the cache has no
 * fresh result (PostHog's `*_ASYNC_*` execution modes): `async_except_on_cache_miss` only when a
 * stale result is there to answer meanwhile.
 */
export function computesAsync(mode: RefreshMode, hasStale: boolean): boolean {
  if (mode === 'async_except_on_cache_miss') return hasStale;
  return mode === 'async' || mode === 'lazy_async' || mode === 'force_async';
}
