import { routeMap, routes } from '../routes';
import { MethodNotAllowedError, NotFoundError } from '../shared/http/errors';
import { createHttpHandler } from '../shared/http/handler';
import { RouteMatcher } from '../shared/http/route-match';
import type { HttpEvent, HttpResult } from '../shared/http/types';

const matcher = new RouteMatcher(routes);

/**
 * Requests no route matched: 405 when the path exists under other methods, else 404, both in the
 * documented error shape instead of API Gateway's own `{"message":"Not Found"}`.
 */
async function unmatched(event: HttpEvent): Promise<HttpResult> {
  if (matcher.pathExists(event.rawPath)) throw new MethodNotAllowedError(event.requestContext.http.method);
  throw new NotFoundError();
}

export const handler = createHttpHandler({ routes: routeMap('fallback', { $default: unmatched }) });
