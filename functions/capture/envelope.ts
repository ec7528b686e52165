import { forwardedClientIp } from '../shared/http/forwarded-for';
import { header, queryParam } from '../shared/http/request';
import type { HttpEvent } from '../shared/http/types';
import { isTruthy } from '../shared/public/python';
import { isObject } from '../shared/domain/properties';

/** What capture knows of the request as a whole, forwarded with every event, as PostHog's `posthog/api/capture.py` forwards it. */

/**
 * The client address: the source IP API Gateway saw, or behind `trustedProxies` reverse proxies the
 * address the outermost of them saw. Never X-Forwarded-For's first entry: that is whatever the client
 * wrote there, so trusting it would let anyone with a project token put any address, and so any GeoIP
 * location, on events.
 */
export function clientIp(event: HttpEvent, trustedProxies: number): string | null {
  const sourceIp = event.requestContext.http.sourceIp;
  if (!sourceIp) return null;
  return forwardedClientIp(sourceIp, header(event, 'x-forwarded-for'), trustedProxies);
}

/** `scheme://host` the client reached us at (Django's `request.build_absolute_uri("/")[:-1]`). */
export function siteUrl(event: HttpEvent): string | null {
  const host = header(event, 'host') ?? event.requestContext.domainName;
  return host ? `${header(event, 'x-forwarded-proto') ?? 'https'}://${host}` : null;
}

/** posthog-js's `_` is milliseconds; Rust capture ignores values from 2020 or before (seconds sent as ms). */
const earliestQuerySentAt = Date.UTC(2021, 0, 1);
const digits = /^\d+(?:\.\d+)?$/;

/** ISO 8601 of an epoch in ms, or null beyond what a Date can hold. */
function isoOf(ms: number): string | null {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function fromQuery(value: string | undefined): string | null {
  if (!value || !digits.test(value)) return null;
  const ms = Number(value);
  return ms >= earliestQuerySentAt ? isoOf(ms) : null;
}

/** Django's `_get_sent_at` for a body or form value: digits are epoch seconds (≤ 11 digits) or ms. */
function fromBody(value: unknown): string | null {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') return null;
  return isoOf(
    digits.test(text) ? (text.length > 11 ? Number(text) : Number(text) * 1000) : Date.parse(text),
  );
}

/**
 * When the client sent the request, for clock-skew correction: query `_` (posthog-js), the payload's
 * `sent_at` (posthog-node, mobile SDKs, the posthog-js envelope), the form's `sent_at`. A value that
 * cannot be read is ignored rather than failing the request.
 */
export function sentAtOf(
  payload: unknown,
  form: URLSearchParams | undefined,
  event: HttpEvent,
): string | null {
  const queried = fromQuery(queryParam(event, '_'));
  if (queried) return queried;
  if (isObject(payload) && isTruthy(payload.sent_at)) return fromBody(payload.sent_at);
  return fromBody(form?.get('sent_at') || undefined);
}
