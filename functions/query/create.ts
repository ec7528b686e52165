import { parseBody, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import type { QueryConfig } from './config';
import { runPlan } from './engine';
import { planQuery } from './plan';
import { queryRequestSchema } from './request';
import { cacheKeyOf, queryResponse } from './response';

/**
 * `POST /api/projects/:project_id/query/` (and `/api/environments/:project_id/query/`): runs the query
 * over the project's lake files and answers PostHog's response for its kind (docs/query-api.md).
 */
export const createQuery = projectRoute<QueryConfig>(async ({ event, project, ...settings }) => {
  const request = parseBody(event, queryRequestSchema);
  const context = { projectId: project.id, timezone: project.timezone, now: new Date() };
  const plan = await planQuery(request.query, context);
  const result = await runPlan(plan, context, settings);
  return json(
    200,
    queryResponse(result, {
      cacheKey: cacheKeyOf(project.id, [request.query, project.timezone]),
      hogql: plan.hogql,
      isCached: false,
      lastRefresh: context.now,
      timezone: project.timezone,
    }),
  );
});
