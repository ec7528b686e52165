import type { ErrorBody } from './errors';

/**
 * Per-caller flood limits, in requests per minute: what the edge's WAF rate-based rules enforce on AWS
 * (lib/flock-edge.ts) and the local gateway plays with token buckets (bin/local/caller-limiter.ts).
 * They sit below API Gateway's stage throttles, which count every caller together: one caller meets
 * its own limit before it can use up everybody's.
 */
export interface CallerLimits {
  /** Requests one personal API key (the `Authorization` header) may make to the private API. */
  readonly perKey: number;
  /** Requests one IP address may make to the private API, whatever keys (or none) it sends. */
  readonly perIpPrivate: number;
  /** Requests one IP address may make to the public endpoints (capture, flags, remote config). */
  readonly perIpPublic: number;
}

/** The window the limits count over: a WAF rate-based rule's evaluation window (60–600 s). */
export const callerLimitWindowSeconds = 60;

/**
 * 1,200 a minute per key is 20 requests/s, below the 50/s each private route admits for everyone;
 * 2,400 per IP (40/s) lets a server use two keys at full rate. 6,000 a minute per IP (100/s) on the
 * public endpoints leaves room for an office or mobile carrier behind one NAT address.
 */
export const defaultCallerLimits: CallerLimits = { perKey: 1_200, perIpPrivate: 2_400, perIpPublic: 6_000 };

/** The private API as the edge tells it, by path prefix (no route matching there); `/users/@me/` too. */
export const privatePathPrefixes = ['/api/', '/users/'] as const;

export const isPrivatePath = (path: string): boolean =>
  privatePathPrefixes.some((prefix) => path.startsWith(prefix));

/** PostHog's answer to a throttled request (`throttled_error`), with `Retry-After` in seconds. */
export const throttledBody = (retryAfterSeconds: number): ErrorBody => ({
  type: 'throttled_error',
  code: 'throttled',
  detail: `Request was throttled. Expected available in ${retryAfterSeconds} seconds.`,
  attr: null,
});

/**
 * Headers of a throttled answer besides `Retry-After`: CORS, so that a browser SDK can read the 429
 * and its `Retry-After` (no credentials are ever allowed, so `*` gives nothing away).
 */
export const throttledCorsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Retry-After',
} as const;
