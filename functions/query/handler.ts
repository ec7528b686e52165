import { bindOperations } from '../routes';
import { createPrivateHttpHandler } from '../shared/http/private-handler';
import { queryConfig } from './config';
import { createQuery } from './create';

/**
 * PostHog's query API (`posthog/api/query.py`): HogQL and insight queries answered from the events
 * lake on DuckDB (docs/query-api.md).
 */
export const handler = createPrivateHttpHandler({
  config: queryConfig(),
  jsonBody: true,
  routes: bindOperations('query', { query_create: createQuery }),
});
