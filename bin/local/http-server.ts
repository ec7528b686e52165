import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { HttpGroup } from '../../functions/routes';
import { routes } from '../../functions/routes';
import { gatewayMaxBodyBytes, lambdaMaxEventBytes } from '../../functions/shared/http/body-limits';
import { throttledBody, throttledCorsHeaders } from '../../functions/shared/http/caller-limits';
import { RouteMatcher } from '../../functions/shared/http/route-match';
import { toApiGatewayEvent } from './api-gateway';
import type { CallerLimiter } from './caller-limiter';
import type { LocalFunction } from './function-host';

type HttpResult = APIGatewayProxyStructuredResultV2 | string | undefined;

function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= gatewayMaxBodyBytes) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > gatewayMaxBodyBytes ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, result: HttpResult): void {
  if (typeof result === 'string' || result === undefined) {
    response.writeHead(200, { 'content-type': 'application/json' }).end(result ?? '');
    return;
  }
  const headers: Record<string, string | number | boolean | string[]> = { ...(result.headers ?? {}) };
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body = result.body ?? '';
  response.writeHead(result.statusCode ?? 200, headers as Record<string, string>);
  response.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
}

function sendJson(
  response: ServerResponse,
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response
    .writeHead(statusCode, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify(body));
}

/**
 * The edge's per-caller limits (the WAF in front of API Gateway on AWS): 0 when `request` may pass,
 * else the seconds until it may. The source address is the connection's own, as the WAF counts the
 * address CloudFront saw; an `X-Forwarded-For` a client sends counts for nothing.
 */
function throttledFor(limiter: CallerLimiter, request: IncomingMessage): number {
  const authorization = request.headers.authorization;
  return limiter.admit({
    path: new URL(request.url ?? '/', 'http://localhost').pathname,
    sourceIp: request.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '',
    ...(authorization === undefined ? {} : { authorization }),
  });
}

/**
 * The local API Gateway: counts each request against the per-caller limits (when a limiter is given),
 * matches it against the route table, builds the event the group's Lambda would receive, invokes that
 * function and writes its response back.
 */
export function createApiServer(
  functions: Readonly<Record<HttpGroup, LocalFunction>>,
  onError: (error: unknown) => void,
  logRequest?: (line: string) => void,
  limiter?: CallerLimiter,
): Server {
  const matcher = new RouteMatcher(routes);
  return createServer((request, response) => {
    if (logRequest) {
      // One line per request, once answered: method, path (no query string: it may hold a key),
      // status, time.
      const started = performance.now();
      response.once('finish', () => {
        const path = (request.url ?? '/').split('?')[0];
        const ms = (performance.now() - started).toFixed(1);
        logRequest(`${request.method ?? 'GET'} ${path} ${response.statusCode} ${ms} ms`);
      });
    }
    const retryAfter = limiter ? throttledFor(limiter, request) : 0;
    if (retryAfter > 0) {
      // Refused before the body is read, as the WAF refuses before API Gateway; the body is drained.
      request.resume();
      sendJson(response, 429, throttledBody(retryAfter), {
        ...throttledCorsHeaders,
        'retry-after': String(retryAfter),
      });
      return;
    }
    void (async () => {
      const body = await readBody(request);
      if (body === undefined) {
        // API Gateway's own answer: the body never reaches a function.
        sendJson(response, 413, { message: 'Request Entity Too Large' });
        return;
      }
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const match = matcher.match(request.method ?? 'GET', path);
      if (!match) {
        sendJson(response, 404, { message: 'Not Found' });
        return;
      }
      const event = toApiGatewayEvent(request, body, match);
      // JSON escapes a character into at most 6: only a body above an eighth of the limit can overflow it.
      if (
        body.length > lambdaMaxEventBytes / 8 &&
        Buffer.byteLength(JSON.stringify(event)) > lambdaMaxEventBytes
      ) {
        // Lambda refuses the invocation (RequestEntityTooLargeException); API Gateway answers as for
        // any failed integration. Below this, the function answers 413 in PostHog's shape itself.
        sendJson(response, 500, { message: 'Internal Server Error' });
        return;
      }
      const result = await functions[match.route.group].invoke<HttpResult>(event);
      send(response, result);
    })().catch((error: unknown) => {
      // What API Gateway answers when the integration itself fails.
      onError(error);
      if (!response.headersSent) sendJson(response, 500, { message: 'Internal Server Error' });
      else response.end();
    });
  });
}
