import type { Properties } from './types';

/**
 * `{ ...value }` for a value of any type, as the original plugins spread whatever a client sent: an
 * object is copied, null and undefined give `{}`, and a string gives its characters by index.
 */
export function spreadOf(value: unknown): Properties {
  return { ...(value as Properties) };
}

/**
 * A property value as text where a plugin expects a string (an IP, a user agent): strings as they
 * are, numbers and booleans as `String()` writes them, anything else as JSON rather than
 * `[object Object]`. Only odd client data takes the last branch, and no lookup matches it either way.
 */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
}
