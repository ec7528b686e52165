/**
 * Walking keys chosen by a tenant (a plugin config's paths, an event's own property names) without
 * reaching the JavaScript every tenant of the container shares. `key in object`, `object[key]` and
 * `delete object[key]` follow inherited keys: `constructor` leads from any object to `Object`, and from
 * there to `Function` and its `prototype`, where a delete removes a built-in (say `Object.hasOwn`) for
 * the life of the container. Walks go through own keys of what JSON makes (plain objects and arrays),
 * and config paths may not name the keys that lead elsewhere.
 */

/** The keys through which an object reaches shared machinery rather than its own data. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** The first segment of the `separator`-separated paths that is a prototype key, or undefined. */
export function prototypeSegmentOf(paths: readonly string[], separator: string): string | undefined {
  for (const path of paths)
    for (const segment of path.split(separator)) if (PROTOTYPE_KEYS.has(segment)) return segment;
  return undefined;
}

/** What JSON makes: an array, or an object whose prototype is `Object.prototype` (or null). */
export function isPlainContainer(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Whether `key` is one of `container`'s own enumerable keys (what `Object.keys` lists): never an
 * inherited one, nor an array's `length`.
 */
export function hasOwnEntry(container: object, key: string): boolean {
  return Object.getOwnPropertyDescriptor(container, key)?.enumerable === true;
}
