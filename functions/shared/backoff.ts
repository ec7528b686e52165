import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Exponential backoff with jitter before retry `retry` (1-based): `firstMs`, doubling with each
 * retry up to `capMs`, times a random factor in [0.5, 1.5) so that callers refused together do not
 * come back together.
 */
export function backoff(retry: number, firstMs: number, capMs: number): Promise<void> {
  return sleep(Math.min(capMs, firstMs * 2 ** (retry - 1)) * (0.5 + Math.random()));
}
