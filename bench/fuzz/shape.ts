/**
 * Whether a 4xx JSON body is in a documented error shape: PostHog's `{type, code, detail, attr}`
 * (DRF may add `extra`), every one a string but `attr`, which may be null; or, for a 413, API
 * Gateway's own `{"message": "Request Entity Too Large"}` for a body over its 10 MB limit, which
 * never reaches Flock (the README's request size limits; the local server answers the same).
 */
export function isDocumentedErrorBody(text: string, status?: number): boolean {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  if (status === 413 && JSON.stringify(body) === '{"message":"Request Entity Too Large"}') return true;
  const { type, code, detail, attr, ...rest } = body as Record<string, unknown>;
  const extraKeys = Object.keys(rest).filter((key) => key !== 'extra');
  return (
    typeof type === 'string' &&
    typeof code === 'string' &&
    typeof detail === 'string' &&
    (attr === null || typeof attr === 'string') &&
    extraKeys.length === 0
  );
}

/** Whether a response says it is JSON. */
export const isJsonResponse = (contentType: string | null): boolean =>
  contentType !== null && /^application\/([\w.+-]+\+)?json\b/i.test(contentType);
