import type { Context } from 'aws-lambda';
import { routeKey, routes } from '../../functions/routes';
import { RouteMatcher } from '../../functions/shared/http/route-match';
import type { HttpEvent, HttpHandler } from '../../functions/shared/http/types';

/**
 * API Gateway HTTP API (payload 2.0) events for handler unit tests, routed by the route table as API
 * Gateway and the local server route them.
 */
export interface EventOptions {
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body (stringified, `content-type: application/json` unless given), or a raw string. */
  readonly json?: unknown;
  readonly body?: string;
  readonly query?: string;
  readonly stage?: string;
  readonly host?: string;
}

const matcher = new RouteMatcher(routes);

export function httpEvent(method: string, path: string, options: EventOptions = {}): HttpEvent {
  const match = matcher.match(method, path);
  if (!match) throw new Error(`No route for ${method} ${path}`);
  const key = routeKey(match.route);
  const body = options.json !== undefined ? JSON.stringify(options.json) : options.body;
  const query = options.query ?? '';
  const params = new URLSearchParams(query);
  return {
    version: '2.0',
    routeKey: key,
    rawPath: path,
    rawQueryString: query,
    headers: {
      host: options.host ?? 'api.example.com',
      'x-forwarded-proto': 'https',
      ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(query ? { queryStringParameters: Object.fromEntries(params) } : {}),
    ...(Object.keys(match.pathParameters).length > 0 ? { pathParameters: match.pathParameters } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: options.host ?? 'api.example.com',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'api-request-1',
      routeKey: key,
      stage: options.stage ?? '$default',
      time: '21/Nov/2026:19:13:00 +0000',
      timeEpoch: 0,
    },
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded: false,
  };
}

export const lambdaContext = { awsRequestId: 'lambda-request-1' } as Context;

export interface Invoked {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

/** Runs a handler on an event; the body comes back parsed (undefined when empty). */
export async function invoke(handler: HttpHandler, event: HttpEvent): Promise<Invoked> {
  const result = await handler(event, lambdaContext);
  return {
    statusCode: result.statusCode,
    headers: result.headers,
    body: result.body ? (JSON.parse(result.body) as unknown) : undefined,
  };
}
