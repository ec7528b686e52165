import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

/** API Gateway HTTP API (payload format 2.0) request and response. */
export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string>;
};
export type HttpHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>;

/**
 * A route function: typed input in, result out, typed errors thrown. `config` is what its handler
 * parsed from the environment at cold start (routes that need none ignore it).
 */
export type RouteFunction<C = unknown> = (event: HttpEvent, config: C) => Promise<HttpResult>;
