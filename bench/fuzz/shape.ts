/**
 * Whether a 4xx JSON body is in a documented error shape: PostHog's `{type, code, detail, attr}`
 * (spec §7, reference §5.2; DRF may add `extra`), every one a string but `attr`, which may be null.
 */
export function isDocumentedErrorBody(text: string): boolean {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
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
