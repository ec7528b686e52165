import { createHttpHandler, unmatchedRequest } from '../shared/http/handler';
import type { HttpEvent, HttpResult } from '../shared/http/types';

/**
 * Requests no route matched: 405 when the path exists under other methods, else 404, both in the
 * documented error shape instead of API Gateway's own `{"message":"Not Found"}`.
 */
async function unmatched(event: HttpEvent): Promise<HttpResult> {
  return unmatchedRequest(event);
}

export const handler = createHttpHandler({ routes: { $default: unmatched } });
