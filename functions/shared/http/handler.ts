import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { routeScopes, routes as routeTable, trailingSlash } from '../../routes';
import { invocationMiddlewares } from '../invocation';
import { apiGatewayHttpCorrelationPath } from '../logger';
import { MethodNotAllowedError, NotFoundError } from './errors';
import { jsonBody } from './json-body';
import { errorResponder, publicCors, serverErrorCount } from './middleware';
import { RouteMatcher } from './route-match';
import type { HttpEvent, HttpResult, RouteFunction } from './types';

export interface HttpHandlerOptions<C> {
  /** Route functions by API Gateway route key (`GET /api/projects/{project_id}/events/`). */
  readonly routes: Readonly<Record<string, RouteFunction<C>>>;
  /** The handler's configuration, parsed once at cold start, given to every route function. */
  readonly config?: C;
  /** Public endpoints answer CORS on every response. @default false */
  readonly cors?: boolean;
  /** Parse JSON request bodies for `requestBody()` (the private API). @default false */
  readonly jsonBody?: boolean;
}

let matcher: RouteMatcher | undefined;

/**
 * The whole route table compiled (two patterns per route, sorted): built for the first request no
 * route serves, not at every HTTP function's cold start.
 */
const routeMatcher = (): RouteMatcher => (matcher ??= new RouteMatcher(routeTable));

/**
 * What a request that no route serves gets: 405 when its path is served under other methods, else
 * 404. Used by `$default` and by a trailing-slash route asked for a deeper path (`/{proxy+}` only
 * stands for the slash, see routes.ts), since API Gateway sends e.g. `DELETE /api/projects/1/x/` to
 * `DELETE /api/projects/{project_id}/{proxy+}`.
 */
export function unmatchedRequest(event: HttpEvent): never {
  if (routeMatcher().pathExists(event.rawPath))
    throw new MethodNotAllowedError(event.requestContext.http.method);
  throw new NotFoundError();
}

/**
 * The Lambda handler of a group that serves no private route (capture, schema, the fallback): its
 * bundle carries none of the personal API key code. A private route given to it would run without
 * its key scopes checked, so that is refused at cold start: such groups use
 * `createPrivateHttpHandler` (private-handler.ts).
 */
export function createHttpHandler<C = undefined>(options: HttpHandlerOptions<C>) {
  const scoped = Object.keys(options.routes).find((key) => routeScopes.has(key));
  if (scoped) throw new Error(`${scoped} declares key scopes: serve it with createPrivateHttpHandler`);
  return buildHttpHandler(options);
}

/**
 * The Lambda handler of one endpoint group: middleware first, route map last. `keyScopes`, when
 * given, runs after the body is parsed (a key may come in it) and before the route function.
 * API Gateway has already matched the route, so dispatch is a lookup of the route key.
 */
export function buildHttpHandler<C = undefined>(
  options: HttpHandlerOptions<C>,
  keyScopes?: MiddlewareObj<HttpEvent, HttpResult>,
) {
  const dispatch = async (event: HttpEvent): Promise<HttpResult> => {
    const route = options.routes[event.routeKey];
    if (!route) throw new NotFoundError();
    if (event.routeKey.endsWith(trailingSlash) && event.pathParameters?.proxy) unmatchedRequest(event);
    return route(event, options.config as C);
  };
  const handler = middy<HttpEvent, HttpResult>()
    .use(invocationMiddlewares<HttpEvent, HttpResult>(apiGatewayHttpCorrelationPath))
    .use(serverErrorCount())
    .use(httpHeaderNormalizer());
  if (options.cors) handler.use(publicCors());
  handler.use(errorResponder());
  if (options.jsonBody) handler.use(jsonBody());
  if (keyScopes) handler.use(keyScopes);
  return handler.handler(dispatch);
}
