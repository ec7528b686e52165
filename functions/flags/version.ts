import { queryParam } from '../shared/http/request';
import type { HttpEvent } from '../shared/http/types';

/**
 * The response version a request asks for with `?v=` (`posthog/api/decide.py`): absent or empty → 1; an
 * integer → itself; anything else → 2, Django's answer to posthog-js 1.19.0, which sent
 * `v=2&v=1.19.0`. Django reads the last value of a repeated parameter; API Gateway joins repeats with
 * commas, so the last comma-separated part is the one read.
 */
export function requestedVersion(event: HttpEvent): number {
  const raw = queryParam(event, 'v');
  if (raw === undefined) return 1;
  const last = raw.slice(raw.lastIndexOf(',') + 1).trim();
  if (last === '') return 1;
  return /^[+-]?\d{1,9}$/.test(last) ? Number(last) : 2;
}
