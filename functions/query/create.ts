import { getPersonsByDistinctIds } from '../shared/db/persons';
import { parseBody, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import type { QueryConfig } from './config';
import { lakeFilesOf } from './lake-files';
import { runOnLake } from './lake-run';
import { planQuery } from './plan';
import { queryRequestSchema } from './request';
import { cacheKeyOf, queryResponse } from './response';

/**
 * `POST /api/projects/:project_id/query/` (and `/api/environments/:project_id/query/`): runs the query
 * over the project's lake files and answers PostHog's response for its kind (docs/query-api.md).
 */
export const createQuery = projectRoute<QueryConfig>(
  async ({ event, project, lakeBucket, maxLakeBytes, singleTable }) => {
    const request = parseBody(event, queryRequestSchema);
    const context = {
      projectId: project.id,
      timezone: project.timezone,
      now: new Date(),
      personsOf: (ids: readonly string[]) => getPersonsByDistinctIds(singleTable, project.id, ids),
    };
    const plan = await planQuery(request.query, context);
    const files = await lakeFilesOf(lakeBucket, project.id, plan.dates);
    const result = await runOnLake(plan, lakeBucket, files, maxLakeBytes, project.timezone);
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
  },
);
