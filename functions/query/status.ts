import { deleteQueryRun, getQueryRun } from '../shared/db/query-status';
import { NotFoundError } from '../shared/http/errors';
import type { ProjectRequest } from '../shared/http/private-route';
import { projectRoute } from '../shared/http/private-route';
import { json, noContent } from '../shared/http/responses';
import { queryStatusOf } from './async-runs';
import type { QueryConfig } from './config';

/**
 * `GET` and `DELETE …/query/:query_id/` (PostHog's `QueryViewSet.retrieve` and `destroy`,
 * posthog/api/query.py): an async query's status, and its cancellation. A query id is only ever
 * found in its own project: another project's, or one never sent, is PostHog's 404.
 */

/** Async ids are the client's `client_query_id` (letters, digits, `-`, `_`) or a cache key. */
const queryIdPattern = /^[A-Za-z0-9_-]{1,200}$/;

/** The path's query id, or PostHog's 404 for one that cannot exist. */
function queryIdOf({ event, project }: ProjectRequest<QueryConfig>): string {
  const id = event.pathParameters?.query_id ?? '';
  if (!queryIdPattern.test(id)) throw notFound(id, project.id);
  return id;
}

const notFound = (id: string, projectId: number): NotFoundError =>
  new NotFoundError(`Query ${id} not found for team ${projectId}`);

/**
 * The status: 202 while it runs, 200 once complete, 400 for an error whose message the client may
 * read (its query's own, a timeout) and 500 for one it may not, as PostHog's view answers.
 */
export const retrieveQueryStatus = projectRoute<QueryConfig>(async (request) => {
  const id = queryIdOf(request);
  const now = Date.now();
  const record = await getQueryRun(request.singleTable, request.project.id, id, now);
  if (!record) throw notFound(id, request.project.id);
  const status = queryStatusOf(record, now);
  const code = !status.complete ? 202 : !status.error ? 200 : status.error_message ? 400 : 500;
  return json(code, { query_status: status });
});

/** Cancels: the status is deleted, so its run (pending or running) never writes results. 204. */
export const cancelQuery = projectRoute<QueryConfig>(async (request) => {
  const id = queryIdOf(request);
  if (!(await deleteQueryRun(request.singleTable, request.project.id, id, Date.now())))
    throw notFound(id, request.project.id);
  return noContent();
});
