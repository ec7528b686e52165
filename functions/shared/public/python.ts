/**
 * The Python semantics PostHog's Django capture is written in, where Flock must match them: which
 * values count as "not set" (`if not value`, `data.get(key)`) and how a value's type is named in
 * error messages (`type(value).__name__`).
 */

export type JsonObject = Record<string, unknown>;

/**
 * Python truthiness of a JSON value: `None`, `False`, `0`, `""`, `[]` and `{}` are falsy; everything
 * else is truthy, NaN included (`bool(float('nan'))` is True).
 */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return hasOwnKey(value);
  return true;
}

/** Whether an object has any key, without building the list of its keys (this runs once per event). */
function hasOwnKey(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

/** `type(value).__name__` of a JSON value as Python's `json.loads` returns it. */
export function pythonTypeName(value: unknown): string {
  if (typeof value === 'string') return 'str';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'boolean') return 'bool';
  if (value === null || value === undefined) return 'NoneType';
  return Array.isArray(value) ? 'list' : 'dict';
}
