import * as z from 'zod';
import { components } from './registry';

/**
 * What the query API answers (posthog/schema.py): the kind's own fields (a HogQLQuery's shown) and
 * the cache envelope every kind carries.
 */
export const queryResponseSchema = z
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
