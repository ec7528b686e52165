import * as z from 'zod';
import { validationErrorFromZod } from './errors';
import { baseUrl } from './request';
import type { HttpEvent } from './types';

/**
 * DRF's LimitOffsetPagination as PostHog configures it (`REST_FRAMEWORK` settings): `?limit=&offset=`, 100 per
 * page by default, and the `{count, next, previous, results}` envelope whose `next`/`previous` are absolute URLs of the
 * same request with `limit` and `offset` replaced.
 *
 * Where Flock differs: DRF silently falls back to the default for a malformed `limit`; Flock answers
 * 400 `validation_error` naming the parameter (a client asking for a page size it does not get is a
 * bug worth surfacing). And a page is at most `maxLimit` items (DRF's cutoff behaviour: larger
 * values are clamped), so one request's reads stay bounded.
 */
export interface Page {
  readonly limit: number;
  readonly offset: number;
}

export interface Paginated<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export const defaultLimit = 100;
export const maxLimit = 1000;

const integerParam = (minimum: number) =>
  z
    .string()
    .regex(/^\d+$/, 'A valid integer is required.')
    .transform((value) => Number(value))
    .pipe(z.number().int().min(minimum, `Ensure this value is greater than or equal to ${minimum}.`));

/** The query parameters of every list (also used by the OpenAPI document). */
export const pageQuerySchema = z.object({
  limit: integerParam(1).optional().describe('Number of results to return per page (default 100).'),
  offset: integerParam(0).optional().describe('The initial index from which to return the results.'),
});

/** The page a list request asks for; 400 `validation_error` (attr `limit`/`offset`) if malformed. */
export function pageOf(event: HttpEvent): Page {
  const query = event.queryStringParameters ?? {};
  const parsed = pageQuerySchema.safeParse({ limit: query.limit, offset: query.offset });
  if (!parsed.success) throw validationErrorFromZod(parsed.error);
  return {
    limit: Math.min(parsed.data.limit ?? defaultLimit, maxLimit),
    offset: parsed.data.offset ?? 0,
  };
}

/**
 * The absolute URL of this request with `changes` applied to its query (undefined removes), built
 * from the request's own scheme, host and stage. Other query parameters are kept as sent, except a
 * `personal_api_key`: a secret is never echoed into `next`/`previous` links, which clients log and
 * share (the caller sends the key again, as it did for this page).
 */
export function requestUrl(event: HttpEvent, changes: Readonly<Record<string, string | undefined>>): string {
  const params = new URLSearchParams(event.rawQueryString ?? '');
  params.delete('personal_api_key');
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) params.delete(name);
    else params.set(name, value);
  }
  const stage = event.requestContext.stage;
  // On a named stage `rawPath` may already start with the stage, which `baseUrl` adds too.
  const path =
    stage && stage !== '$default' && event.rawPath.startsWith(`/${stage}/`)
      ? event.rawPath.slice(stage.length + 1)
      : event.rawPath;
  const query = params.toString();
  return `${baseUrl(event)}${path}${query ? `?${query}` : ''}`;
}

/** DRF's `get_next_link` / `get_previous_link`. */
export function pageLinks(
  event: HttpEvent,
  page: Page,
  count: number,
): { next: string | null; previous: string | null } {
  const limit = String(page.limit);
  const next =
    page.offset + page.limit < count
      ? requestUrl(event, { limit, offset: String(page.offset + page.limit) })
      : null;
  let previous: string | null = null;
  if (page.offset > 0) {
    const offset = page.offset - page.limit;
    previous = requestUrl(event, { limit, offset: offset > 0 ? String(offset) : undefined });
  }
  return { next, previous };
}

/** The envelope of one page whose items are already read, out of `count` in all. */
export function paginated<T>(event: HttpEvent, page: Page, count: number, results: T[]): Paginated<T> {
  return { count, ...pageLinks(event, page, count), results };
}

/** The page of `items` (every item of the list, in order) the request asks for. */
export function slicePage<T>(items: readonly T[], page: Page): T[] {
  return items.slice(page.offset, page.offset + page.limit);
}
