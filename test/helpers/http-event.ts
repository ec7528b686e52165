import type { Context } from 'aws-lambda';
import { routeKey, routes } from '../../functions/routes';
import { RouteMatcher } from '../../functions/shared/http/route-match';
import type { HttpEvent, HttpHandler } from '../../functions/shared/http/types';

/**
 * API Gateway HTTP API (payload 2.0) events for handler unit tests, routed by the route table as API
 * Gateway and the local server route them. `apiGatewayEvent` is the one builder; `httpEvent` is its
 * short form for JSON APIs.
 */
export interface GatewayEventOptions {
  readonly method: string;
  readonly path: string;
  /** Lower-case names, as API Gateway delivers them (host and x-forwarded-proto are added). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The raw query string, or its parameters. */
  readonly query?: string | Readonly<Record<string, string>>;
  /** Text as is; a Buffer is base64-encoded unless `base64` says otherwise. */
  readonly body?: string | Buffer;
  /** API Gateway base64-encodes bodies it does not pass as text; default: Buffers yes, strings no. */
  readonly base64?: boolean;
  readonly host?: string;
  readonly stage?: string;
  readonly sourceIp?: string;
  readonly requestId?: string;
  /** The route API Gateway matched; by default the route table's match (`$default` when none). */
  readonly routeKey?: string;
}

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

export function apiGatewayEvent(options: GatewayEventOptions): HttpEvent {
  const { method, path } = options;
  const match = options.routeKey === undefined ? matcher.match(method, path) : undefined;
  if (options.routeKey === undefined && !match) throw new Error(`No route for ${method} ${path}`);
  const key = options.routeKey ?? routeKey(match!.route);
  const pathParameters = match?.pathParameters ?? {};
  const query =
    typeof options.query === 'string' ? options.query : new URLSearchParams(options.query ?? {}).toString();
  const parameters = Object.fromEntries(new URLSearchParams(query));
  const host = options.host ?? 'api.example.com';
  const { body } = options;
  const base64 = options.base64 ?? Buffer.isBuffer(body);
  const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  return {
    version: '2.0',
    routeKey: key,
    rawPath: path,
    rawQueryString: query,
    headers: { host, 'x-forwarded-proto': 'https', ...options.headers },
    ...(query ? { queryStringParameters: parameters } : {}),
    ...(Object.keys(pathParameters).length > 0 ? { pathParameters } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: host,
      domainPrefix: host.split('.')[0]!,
      http: {
        method,
        path,
        protocol: 'HTTP/1.1',
        sourceIp: options.sourceIp ?? '127.0.0.1',
        userAgent: options.headers?.['user-agent'] ?? 'test',
      },
      requestId: options.requestId ?? 'api-request-1',
      routeKey: key,
      stage: options.stage ?? '$default',
      time: '21/Nov/2026:19:13:00 +0000',
      timeEpoch: 0,
    },
    ...(bytes === undefined ? {} : { body: base64 ? bytes.toString('base64') : bytes.toString('utf8') }),
    isBase64Encoded: base64,
  };
}

export function httpEvent(method: string, path: string, options: EventOptions = {}): HttpEvent {
  return apiGatewayEvent({
    method,
    path,
    query: options.query ?? '',
    headers: {
      ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
    ...(options.stage !== undefined ? { stage: options.stage } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
  });
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
