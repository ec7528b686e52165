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

/**
 * Whether a request may be answered from the cache: every mode but the `force_` ones that recompute
 * (`force_cache`, and no mode at all, are `blocking` on `/query/`, as PostHog's view remaps them).
 * The async modes are answered as `blocking` (computed within the request on a miss).
 */
export function readsCache(request: { refresh?: (typeof refreshModes)[number] | null }): boolean {
  return request.refresh !== 'force_blocking' && request.refresh !== 'force_async';
}
