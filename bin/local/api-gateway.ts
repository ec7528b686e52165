import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { routeKey } from '../../functions/routes';
import type { RouteMatch } from '../../functions/shared/http/route-match';

/**
 * An HTTP request → the API Gateway HTTP API event (payload format 2.0) its Lambda would receive:
 * lower-cased headers with repeats joined by commas, repeated query parameters joined by commas,
 * and bodies base64-encoded unless they are text API Gateway passes through as such.
 */
const textTypes = [
  /^text\//,
  /^application\/json/,
  /^application\/[\w.+-]*\+json/,
  /^application\/javascript/,
  /^application\/xml/,
];

function isPassedAsText(
  contentType: string | undefined,
  contentEncoding: string | undefined,
  body: Buffer,
): boolean {
  if (contentEncoding) return false;
  if (!contentType || !textTypes.some((type) => type.test(contentType.toLowerCase()))) return false;
  // Checked in place: decoding the body only to see whether it is UTF-8 cost a second copy of it
  // (about 30 µs for a 90 KB `/batch/`) on the thread every emulator shares.
  return isUtf8(body);
}

function joinedHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!.toLowerCase();
    const value = request.rawHeaders[i + 1]!;
    if (name === 'cookie') continue;
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  return headers;
}

function joinedQuery(rawQueryString: string): Record<string, string> | undefined {
  if (!rawQueryString) return undefined;
  const result: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    result[name] = result[name] === undefined ? value : `${result[name]},${value}`;
  }
  return result;
}

export function toApiGatewayEvent(
  request: IncomingMessage,
  body: Buffer,
  match: RouteMatch,
): APIGatewayProxyEventV2 {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const rawQueryString = (request.url ?? '').includes('?')
    ? (request.url ?? '').slice((request.url ?? '').indexOf('?') + 1)
    : '';
  const headers = joinedHeaders(request);
  const cookies = request.headers.cookie?.split(';').map((cookie) => cookie.trim());
  const now = new Date();
  const asText =
    body.length === 0 || isPassedAsText(headers['content-type'], headers['content-encoding'], body);
  const key = routeKey(match.route);
  return {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString,
    ...(cookies ? { cookies } : {}),
    headers: {
      ...headers,
      'x-forwarded-proto': 'http',
      'x-forwarded-for': headers['x-forwarded-for'] ?? request.socket.remoteAddress ?? '',
    },
    ...(joinedQuery(rawQueryString) ? { queryStringParameters: joinedQuery(rawQueryString) } : {}),
    ...(Object.keys(match.pathParameters).length > 0 ? { pathParameters: match.pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0]!,
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: key,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: asText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: !asText,
  };
}

/** A Lambda context for one invocation. */
export function lambdaContext(functionName: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
