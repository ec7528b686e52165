import type { Context, SQSEvent } from 'aws-lambda';
import { bindOperations } from '../routes';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import type { HttpEvent, HttpResult } from '../shared/http/types';
import { invocationHandler } from '../shared/invocation';
import { runQueryRuns } from './async-runs';
import { queryConfig } from './config';
import { createQuery } from './create';
import { cancelQuery, retrieveQueryStatus } from './status';

/**
 * PostHog's query API (`posthog/api/query.py`): HogQL and insight queries answered from the events
 * lake on DuckDB (docs/query-api.md). The same function runs async queries: the runs queue's event
 * source invokes it with their messages (functions/query/async-runs.ts).
 */
const config = queryConfig();

const http = createPrivateHttpHandler({
  config,
  jsonBody: true,
  routes: bindOperations('query', {
    query_create: createQuery,
    query_retrieve: retrieveQueryStatus,
    query_destroy: cancelQuery,
  }),
});

const runs = invocationHandler<SQSEvent, void>((event) => runQueryRuns(event, config));

/** An SQS event source's batch: `Records`, each from `aws:sqs`. */
const isQueueBatch = (event: HttpEvent | SQSEvent): event is SQSEvent =>
  'Records' in event && Array.isArray(event.Records);

export const handler = (event: HttpEvent | SQSEvent, context: Context): Promise<HttpResult | void> =>
  isQueueBatch(event) ? runs(event, context) : http(event, context);
