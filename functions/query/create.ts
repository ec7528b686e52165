import type { CachedQuery } from '../shared/db/query-cache';
import { getCachedQuery, putCachedQuery } from '../shared/db/query-cache';
import { parseBody, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { enqueueQueryRun } from './async-runs';
import { computeQuery, prepareQuery, queryContextOf } from './compute';
import type { QueryConfig } from './config';
import type { RefreshMode } from './request';
import { computesAsync, queryRequestSchema, readsCache, refreshModeOf } from './request';
import { cacheTargetAgeMs, lazyCacheTargetAgeMs, queryResponse } from './response';

/** Whether `cached` is still fresh at `now` for `mode` (`lazy_async` has a longer window). */
function isFresh(cached: CachedQuery, mode: RefreshMode, now: Date): boolean {
  const age = mode === 'lazy_async' ? lazyCacheTargetAgeMs : cacheTargetAgeMs;
  return now.getTime() < cached.lastRefresh.getTime() + age;
}

/**
 * `POST /api/projects/:project_id/query/` (and `/api/environments/:project_id/query/`): runs the query
 * over the project's lake files and answers PostHog's response for its kind (docs/query-api.md). The
 * result is cached per (project, query, timezone, lake state): a request whose `refresh` mode reads
 * the cache gets a result still fresh for those very files (`is_cached: true`). Otherwise the blocking
 * modes compute it within the request, on the engine the settings choose (DuckDB in the function, or
 * Athena past its budget); the async ones send it to run in the background and answer 202 with its
 * `query_status` (beside the stale result, when there is one), as PostHog's query runner does.
 */
export const createQuery = projectRoute<QueryConfig>(async ({ event, project, ...settings }) => {
  const request = parseBody(event, queryRequestSchema);
  const mode = refreshModeOf(request);
  const context = queryContextOf(settings, project, new Date());
  const prepared = await prepareQuery(request.query, context, settings);
  const meta = { cacheKey: prepared.cacheKey, timezone: project.timezone };
  const cached = readsCache(mode)
    ? await getCachedQuery(settings.singleTable, prepared.cacheKey, context.now)
    : undefined;
  if (cached && isFresh(cached, mode, context.now))
    return json(200, queryResponse(cached.result, { ...meta, ...cached, isCached: true }));
  if (computesAsync(mode, cached !== undefined)) {
    // PostHog's async id: the client's, or the cache key.
    const queryId = request.client_query_id ?? prepared.cacheKey;
    const queryStatus = await enqueueQueryRun(settings, project, queryId, request.query, context.now);
    if (cached)
      return json(202, queryResponse(cached.result, { ...meta, ...cached, isCached: true, queryStatus }));
    return json(
      202,
      mode === 'force_async'
        ? { query_status: queryStatus }
        : { cache_key: prepared.cacheKey, query_status: queryStatus },
    );
  }
  const entry = await computeQuery(prepared, context, settings);
  await putCachedQuery(settings.singleTable, prepared.cacheKey, entry);
  return json(200, queryResponse(entry.result, { ...meta, ...entry, isCached: false }));
});
