/**
 * `exact` / `is_not` as posthog-node (and the flags service) compare values: boolean-like filters
 * compare truthiness, everything else compares case-insensitive text, so `5` equals `"5"` and
 * `"Gold"` equals `"gold"`.
 */

/** `true`, `false`, `"True"`, `"FALSE"`…, or a list made only of those (an empty list counts). */
function isBooleanLike(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    return lower === 'true' || lower === 'false';
  }
  return Array.isArray(value) && value.every(isBooleanLike);
}

function isTruthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.toLowerCase() === 'true';
  return Array.isArray(value) && value.every(isTruthy);
}

/**
 * Keys sort by Unicode code point, as the flags service's JSON maps do (UTF-16 order differs for
 * characters beyond the Basic Multilingual Plane).
 */
function compareKeys(left: string, right: string): number {
  const leftPoints = Array.from(left, (c) => c.codePointAt(0) ?? 0);
  const rightPoints = Array.from(right, (c) => c.codePointAt(0) ?? 0);
  const length = Math.min(leftPoints.length, rightPoints.length);
  for (let i = 0; i < length; i++) {
    const difference = (leftPoints[i] ?? 0) - (rightPoints[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return leftPoints.length - rightPoints.length;
}

/** Compact JSON with sorted keys: the text the flags service compares non-string values by. */
function serialize(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(serialize).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort(compareKeys);
    return `{${keys.map((key) => `${JSON.stringify(key)}:${serialize(record[key])}`).join(',')}}`;
  }
  // Not JSON (a function, a symbol): only reachable from code, never from a request.
  return 'null';
}

/** A string compares as itself; anything else as its JSON text. */
export function exactMatchText(value: unknown): string {
  return typeof value === 'string' ? value : serialize(value);
}

/** `lowercase`: the actual value's text lowercase, where the caller keeps it. */
export function isExactMatch(
  filterValue: unknown,
  actual: unknown,
  lowercase = (): string => exactMatchText(actual).toLowerCase(),
): boolean {
  if (isBooleanLike(filterValue)) return isTruthy(filterValue) === isTruthy(actual);
  const actualText = lowercase();
  if (Array.isArray(filterValue)) {
    return filterValue.some((item) => exactMatchText(item).toLowerCase() === actualText);
  }
  return exactMatchText(filterValue).toLowerCase() === actualText;
}
