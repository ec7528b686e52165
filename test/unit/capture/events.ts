import type { Context } from 'aws-lambda';
import { compressToBase64 } from 'lz-string';
import { gzipSync } from 'node:zlib';
import type { HttpEvent, HttpResult } from '../../../functions/shared/http/types';
import { apiGatewayEvent as gatewayEvent } from '../../helpers/http-event';

/**
 * API Gateway HTTP API (payload format 2.0) events for the capture handler, shaped like the requests
 * the real SDKs send (posthog-node's `/batch/`, posthog-js's `/e/`, and their older formats).
 */

export interface RequestOptions {
  readonly method?: 'GET' | 'POST' | 'OPTIONS';
  /** A capture route path of the route table, e.g. `/batch/` or `/track`. */
  readonly path?: string;
  readonly query?: Readonly<Record<string, string>>;
  /** Lower-case names, as API Gateway delivers them. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** API Gateway base64-encodes bodies it does not pass as text; default: Buffers yes, strings no. */
  readonly base64?: boolean;
  readonly sourceIp?: string;
}

export function apiGatewayEvent(options: RequestOptions = {}): HttpEvent {
  return gatewayEvent({
    ...options,
    method: options.method ?? 'POST',
    path: options.path ?? '/e/',
    host: 'capture.example.com',
    sourceIp: options.sourceIp ?? '198.51.100.7',
    requestId: 'request-1',
  });
}

export const lambdaContext: Context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'flock-capture',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:flock-capture',
  memoryLimitInMB: '256',
  awsRequestId: 'aws-request-1',
  logGroupName: '/aws/lambda/flock-capture',
  logStreamName: 'test',
  getRemainingTimeInMillis: () => 30_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
};

export type Handler = (event: HttpEvent, context: Context) => Promise<HttpResult>;

export interface Response {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

/** Invokes the handler and parses its JSON body. */
export async function invoke(handler: Handler, event: HttpEvent): Promise<Response> {
  const result = await handler(event, lambdaContext);
  return { statusCode: result.statusCode, headers: result.headers, body: JSON.parse(result.body ?? 'null') };
}

// ---- Payloads as the SDKs build them -------------------------------------------------------------

export const sentAt = '2026-11-21T19:12:58.403Z';

/** posthog-node 5.70.0's `/batch/` body: distinct_id and uuid at the top level. */
export function nodeBatchPayload(token: string) {
  const lib = { $lib: 'posthog-node', $lib_version: '5.70.0', $is_server: true, $geoip_disable: true };
  return {
    api_key: token,
    batch: [
      {
        event: 'order placed',
        distinct_id: 'node-user-ymgtkq',
        properties: {
          price: 42.5,
          currency: 'EUR',
          items: ['a', 'b'],
          $set: { plan: 'pro' },
          $set_once: { first_seen_via: 'node-probe' },
          ...lib,
        },
        timestamp: '2026-11-21T19:12:58.397Z',
        uuid: '01a1ff86-ac1d-75ba-917c-f4c8fa1e24e6',
      },
      {
        event: '$identify',
        distinct_id: 'node-user-ymgtkq',
        properties: {
          $set: { email: 'a@example.com', name: 'Ada' },
          $set_once: { signup: '2024-01-01' },
          $anon_distinct_id: 'anon-123',
          ...lib,
        },
        timestamp: '2026-11-21T19:12:58.398Z',
        uuid: '01a1ff86-ac1e-75ba-917c-f4c8fa1e24e6',
      },
      {
        event: '$create_alias',
        distinct_id: 'node-user-ymgtkq',
        properties: { distinct_id: 'node-user-ymgtkq', alias: 'node-user-ymgtkq-alias', ...lib },
        timestamp: '2026-11-21T19:12:58.399Z',
        uuid: '01a1ff86-ac1f-75ba-917c-f4c8fa1e24e6',
      },
      {
        event: '$groupidentify',
        distinct_id: '$company_acme',
        properties: {
          $group_type: 'company',
          $group_key: 'acme',
          $group_set: { name: 'Acme Inc', employees: 10 },
          ...lib,
        },
        timestamp: '2026-11-21T19:12:58.400Z',
        uuid: '01a1ff86-ac20-75ba-917c-f4c8fa1e24e6',
      },
    ],
    sent_at: sentAt,
  };
}

/** posthog-node 5.x: gzip, `Content-Encoding: gzip`, `application/json`; API Gateway base64s it. */
export function nodeBatchRequest(payload: unknown, path = '/batch/'): HttpEvent {
  return apiGatewayEvent({
    path,
    headers: {
      'user-agent': 'posthog-node/5.70.0',
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      accept: '*/*',
    },
    body: gzipSync(JSON.stringify(payload)),
  });
}

/** posthog-js 1.449.2's `/e/` envelope: distinct_id and token inside properties. */
export function jsEnvelopePayload(token: string) {
  const browser = {
    distinct_id: '01a1ff87-edcd-7000-8000-000000000001',
    $device_id: '01a1ff87-edcd-7000-8000-000000000001',
    token,
    $session_id: '01a1ff87-edcd-7000-8000-000000000002',
    $window_id: '01a1ff87-edcd-7000-8000-000000000003',
    $lib: 'web',
    $lib_version: '1.449.2',
  };
  return {
    api_key: token,
    batch: [
      {
        uuid: '01a1ff87-edf1-73f5-b4ce-7d77dd6c5e82',
        event: '$pageview',
        properties: {
          ...browser,
          $current_url: 'http://localhost:36749/',
          $pathname: '/',
          $time: 1795288460.814,
          $process_person_profile: false,
        },
        timestamp: '2026-11-21T19:14:20.784Z',
      },
      {
        uuid: '01a1ff87-edf2-73f5-b4ce-7d77dd6c5e82',
        event: '$identify',
        $set: { email: 'b@example.com' },
        $set_once: { first_visit: '2026-11-21' },
        properties: { ...browser, distinct_id: 'browser-user-1', $anon_distinct_id: browser.distinct_id },
        timestamp: '2026-11-21T19:14:20.790Z',
      },
    ],
    sent_at: '2026-11-21T19:14:20.822Z',
  };
}

const browserHeaders = {
  origin: 'http://localhost:36749',
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0',
};

/** posthog-js default: raw gzip as `text/plain`, no `Content-Encoding`, no `compression` parameter. */
export function jsGzipRequest(payload: unknown): HttpEvent {
  return apiGatewayEvent({
    path: '/e/',
    headers: { ...browserHeaders, 'content-type': 'text/plain' },
    body: gzipSync(JSON.stringify(payload)),
  });
}

/** posthog-js with `disable_compression`: plain JSON (preflighted). */
export function jsJsonRequest(payload: unknown, path = '/e/'): HttpEvent {
  return apiGatewayEvent({
    path,
    headers: { ...browserHeaders, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
}

/** URL-safe form body `data=<urlencoded base64 of UTF-8 JSON>`, as posthog-js beacons send it. */
export const base64FormBody = (payload: unknown, extra: Record<string, string> = {}): string =>
  new URLSearchParams({
    data: Buffer.from(JSON.stringify(payload), 'utf8').toString('base64'),
    ...extra,
  }).toString();

/**
 * posthog-js unload beacon without gzip: `/e/?compression=base64`, form-urlencoded. API Gateway HTTP
 * APIs may pass such a body as text or base64-encode it; `apiGatewayBase64` picks.
 */
export function jsBase64FormRequest(payload: unknown, apiGatewayBase64 = true): HttpEvent {
  return apiGatewayEvent({
    path: '/e/',
    query: { compression: 'base64' },
    headers: { ...browserHeaders, 'content-type': 'application/x-www-form-urlencoded' },
    body: Buffer.from(base64FormBody(payload)),
    base64: apiGatewayBase64,
  });
}

/** posthog-js 1.200.0: `/e/?ip=1&_=<ms>&ver=1.200.0&compression=gzip-js`, gzip `text/plain`, bare array. */
export function legacyJsGzipRequest(payload: unknown, sentAtMs: number): HttpEvent {
  return apiGatewayEvent({
    path: '/e/',
    query: { ip: '1', _: String(sentAtMs), ver: '1.200.0', compression: 'gzip-js' },
    headers: { ...browserHeaders, 'content-type': 'text/plain' },
    body: gzipSync(JSON.stringify(payload)),
  });
}

/** Very old posthog-js: `compression=lz64`, form field `data` holding lz-string's base64. */
export function lz64FormRequest(payload: unknown): HttpEvent {
  return apiGatewayEvent({
    path: '/e/',
    query: { compression: 'lz64' },
    headers: { ...browserHeaders, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ data: compressToBase64(JSON.stringify(payload)) }).toString(),
  });
}

/**
 * `GET /e/?data=<base64>`: old posthog-js and image beacons. API Gateway URL-decodes query values; a
 * `+` left unencoded by the client arrives as a space, and padding may be missing.
 */
export function getDataRequest(data: string, path = '/e/', query: Record<string, string> = {}): HttpEvent {
  return apiGatewayEvent({ method: 'GET', path, query: { data, ...query }, headers: browserHeaders });
}

/** Base64 of a payload's JSON with `+` as spaces and no `=` padding, as URL decoding can leave it. */
export const mangledBase64 = (payload: unknown): string =>
  Buffer.from(JSON.stringify(payload), 'utf8').toString('base64').replaceAll('+', ' ').replace(/=+$/, '');

/** A CORS preflight from posthog-js on another origin. */
export function preflightRequest(path: string, requestHeaders: string): HttpEvent {
  return apiGatewayEvent({
    method: 'OPTIONS',
    path,
    headers: {
      origin: 'http://localhost:36749',
      'access-control-request-method': 'POST',
      'access-control-request-headers': requestHeaders,
    },
  });
}
