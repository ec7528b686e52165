import middy from '@middy/core';
import { trailingSlash } from '../../routes';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { NotFoundError } from './errors';
import { errorResponder, publicCors } from './middleware';
import type { HttpEvent, HttpResult, RouteFunction } from './types';

export interface HttpHandlerOptions {
  /** Route functions by API Gateway route key (`GET /api/projects/{project_id}/events/`). */
  readonly routes: Readonly<Record<string, RouteFunction>>;
  /** Public endpoints answer CORS on every response. @default false */
  readonly cors?: boolean;
}

/**
 * The Lambda handler of one endpoint group: middleware first, route map last.
 * API Gateway has already matched the route, so dispatch is a lookup of the route key.
 */
export function createHttpHandler(options: HttpHandlerOptions) {
  const dispatch = async (event: HttpEvent): Promise<HttpResult> => {
    const route = options.routes[event.routeKey];
    // `/{proxy+}` only stands for a trailing slash (see routes.ts): anything deeper is not a route.
    if (!route || (event.routeKey.endsWith(trailingSlash) && event.pathParameters?.proxy))
      throw new NotFoundError();
    return route(event);
  };
  const handler = middy<HttpEvent, HttpResult>().use(httpHeaderNormalizer());
  if (options.cors) handler.use(publicCors());
  return handler.use(errorResponder()).handler(dispatch);
}
