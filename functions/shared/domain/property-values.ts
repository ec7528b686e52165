/**
 * How the events API shows a property's values (`posthog/api/event.py`): lists are flattened into their
 * items, then every value is text: `true` → "true", 565 → "565", objects → their JSON.
 */
const maxValueLength = 400;

/**
 * The values sample keeps one item per (project, key, value), the key in its partition key (2 KB at
 * most) and the value as its sort key (1 KB at most), both counted in UTF-8 bytes: a longer key or
 * value could never be stored, so it is neither sampled nor looked up.
 */
export const sampleKeyLimits = { maxKeyBytes: 1024, maxValueBytes: 1024 } as const;

export function displayValues(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values
    .filter((item) => item !== null && item !== undefined)
    .map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))
    .filter(
      (text) =>
        text !== '' &&
        text.length <= maxValueLength &&
        Buffer.byteLength(text) <= sampleKeyLimits.maxValueBytes,
    );
}

/** Properties that describe person updates or internals, not the event: never sampled. */
export const unsampledProperties = new Set([
  '$set',
  '$set_once',
  '$unset',
  '$elements',
  '$elements_chain',
  '$groups',
]);
