/**
 * When an event happened (PostHog's plugin-server `timestamps.ts`, `handleTimestamp`):
 * - `timestamp` with `sent_at`: the client's clock is corrected by the skew between its `sent_at`
 *   and our receive time: `now + (timestamp − sent_at)`;
 * - `timestamp` alone: as sent;
 * - `offset` (ms before sending): `now − offset`;
 * - otherwise, or if unparsable: now.
 * A result more than 23 hours in the future, or outside years 0–9999, is replaced by now.
 */
const maxFutureMs = 23 * 60 * 60 * 1000;

export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}

export function eventTimestamp(
  event: { timestamp?: unknown; offset?: unknown },
  now: Date,
  sentAt: string | null,
): Date {
  const nowMs = now.getTime();
  const timestamp = parseTimestamp(event.timestamp);
  const sent = parseTimestamp(sentAt);
  let result: number;
  if (timestamp !== undefined) {
    result = sent !== undefined ? nowMs + (timestamp - sent) : timestamp;
  } else if (typeof event.offset === 'number' && Number.isFinite(event.offset)) {
    result = nowMs - event.offset;
  } else {
    result = nowMs;
  }
  // NaN beyond what a Date can hold (±8.64e15 ms), which no comparison below would catch.
  const year = new Date(result).getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999 || result - nowMs > maxFutureMs) return now;
  return new Date(result);
}
