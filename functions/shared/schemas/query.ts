import * as z from 'zod';
import { components } from './registry';

/**
 * What the query API answers (posthog/schema.py): the kind's own fields (a HogQLQuery's shown) and
 * the cache envelope every kind carries.
 */
export const queryResponseSchema = /* @__PURE__ */ z
  .looseObject({
    columns: z.array(z.string()).optional(),
    types: z.array(z.unknown()).optional(),
    results: z.unknown(),
    hasMore: z.boolean().nullable().optional(),
    limit: z.number().nullable().optional(),
    offset: z.number().nullable().optional(),
    hogql: z.string().nullable().optional(),
    is_cached: z.boolean().optional(),
    last_refresh: z.string().optional(),
    next_allowed_client_refresh: z.string().optional(),
    cache_key: z.string().optional(),
    timezone: z.string().optional(),
    query_status: z.unknown().optional(),
  })
  .register(components, { id: 'QueryResponse' });

/** PostHog's `QueryStatus` (posthog/schema.py): an async query's progress, its full response once complete. */
export const queryStatusSchema = /* @__PURE__ */ z
  .object({
    id: z.string(),
    team_id: z.number(),
    query_async: z.literal(true),
    complete: z.boolean(),
    error: z.boolean(),
    error_message: z.string().nullable(),
    results: z.unknown().describe('The full response of the query, once complete without error'),
    start_time: z.string().nullable(),
    pickup_time: z.string().nullable(),
    end_time: z.string().nullable(),
    expiration_time: z.string().nullable(),
    task_id: z.string().nullable(),
    insight_id: z.number().nullable(),
    dashboard_id: z.number().nullable(),
    query_progress: z.unknown(),
    labels: z.array(z.string()).nullable(),
  })
  .register(components, { id: 'QueryStatus' });

/** What `GET …/query/:query_id/` answers. */
export const queryStatusResponseSchema = /* @__PURE__ */ z
  .object({ query_status: queryStatusSchema })
  .register(components, { id: 'QueryStatusResponse' });
