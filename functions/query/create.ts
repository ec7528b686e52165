import { getPersonsByDistinctIds } from '../shared/db/persons';
import { getCachedQuery, putCachedQuery } from '../shared/db/query-cache';
import { parseBody, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import type { QueryConfig } from './config';
import { runPlan } from './engine';
import { lakeFilesOf, lakeStateOf } from './lake-files';
import { planQuery } from './plan';
import { queryRequestSchema, readsCache } from './request';
import { cacheKeyOf, cacheTargetAgeMs, queryResponse } from './response';

/**
 * `POST /api/projects/:project_id/query/` (and `/api/environments/:project_id/query/`): runs the query
 * over the project's lake files and answers PostHog's response for its kind (docs/query-api.md). The
 * result is cached per (project, query, timezone, lake state): a request whose `refresh` mode reads
 * the cache gets a result still fresh for those very files (`is_cached: true`), or a new one, from
 * the engine the settings choose (DuckDB in the function, or Athena past its budget).
 */
export const createQuery = projectRoute<QueryConfig>(async ({ event, project, ...settings }) => {
  const request = parseBody(event, queryRequestSchema);
  const context = {
    projectId: project.id,
    timezone: project.timezone,
    now: new Date(),
    personsOf: (ids: readonly string[]) => getPersonsByDistinctIds(settings.singleTable, project.id, ids),
  };
  const plan = await planQuery(request.query, context);
  const files = await lakeFilesOf(settings.lakeBucket, project.id, plan.dates);
  const cacheKey = cacheKeyOf(project.id, [request.query, project.timezone, lakeStateOf(files)]);
  const meta = { cacheKey, timezone: project.timezone };
  if (readsCache(request)) {
    const cached = await getCachedQuery(settings.singleTable, cacheKey, context.now);
    if (cached && context.now.getTime() < cached.lastRefresh.getTime() + cacheTargetAgeMs)
      return json(200, queryResponse(cached.result, { ...meta, ...cached, isCached: true }));
  }
  const result = await runPlan(plan, context, settings, files);
  const entry = { result, hogql: plan.hogql, lastRefresh: context.now };
  await putCachedQuery(settings.singleTable, cacheKey, entry);
  return json(200, queryResponse(result, { ...meta, ...entry, isCached: false }));
});
