import { queryParam } from '../http/request';
import type { HttpEvent } from '../http/types';
import { invalidProjectId } from './errors';
import { isTruthy } from './python';
import { isObject } from '../domain/properties';

/**
 * Where PostHog finds the credentials of a capture request (`posthog/api/utils.py`, Django `get_token`
 * and `get_project_id`). A value counts only when it is truthy, as in `data.get(key)`.
 */

const firstTruthy = (...values: unknown[]): unknown => values.find(isTruthy);

/** The token inside one event or envelope: `$token` (JS /engage), `token`, `api_key`, `properties.token`. */
function tokenInside(item: unknown): unknown {
  if (!isObject(item)) return undefined;
  return firstTruthy(
    item.$token,
    item.token,
    item.api_key,
    isObject(item.properties) ? item.properties.token : undefined,
  );
}

/**
 * The token of a request, first hit wins: the query (`token`, `api_key`; GET only), the form
 * (`api_key`, `token`), then the payload, whose element 0 speaks for a whole list (so mixed tokens in
 * one array all go to the first event's project, as in Django). An envelope without a token of its
 * own is represented by its first event (posthog-js sends such envelopes; Django would answer `missing_api_key`).
 * Returns whatever value was found: the caller rejects non-strings.
 */
export function tokenOf(payload: unknown, form: URLSearchParams | undefined, event: HttpEvent): unknown {
  const fromQuery =
    event.requestContext.http.method === 'GET'
      ? queryParam(event, 'token') || queryParam(event, 'api_key') || undefined
      : undefined;
  const fromForm = form?.get('api_key') || form?.get('token') || undefined;
  const head: unknown = Array.isArray(payload) ? payload[0] : payload;
  const fromBatch =
    isObject(payload) && Array.isArray(payload.batch) ? tokenInside(payload.batch[0]) : undefined;
  return firstTruthy(fromQuery, fromForm, tokenInside(head), fromBatch);
}

/** Python's `int()` of a string: optional sign and surrounding whitespace. */
const integerText = /^\s*[+-]?\d+\s*$/;

function parseProjectId(value: unknown): number {
  const id = typeof value === 'string' && integerText.test(value) ? Number(value) : value;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw invalidProjectId();
  return id;
}

/**
 * The `project_id` that makes the token a personal API key: query, then form, then the payload (its
 * element 0 for a list). Undefined when absent; a value that is not an integer → 400 `invalid_project`.
 */
export function projectIdOf(
  payload: unknown,
  form: URLSearchParams | undefined,
  event: HttpEvent,
): number | undefined {
  const head: unknown = Array.isArray(payload) ? payload[0] : payload;
  const raw = firstTruthy(
    queryParam(event, 'project_id'),
    form?.get('project_id'),
    isObject(head) ? head.project_id : undefined,
  );
  return raw === undefined ? undefined : parseProjectId(raw);
}
