/**
 * How the events API shows a property's values (reference §6.5): lists are flattened into their
 * items, then every value is text: `true` → "true", 565 → "565", objects → their JSON.
 */
const maxValueLength = 400;

export function displayValues(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values
    .filter((item) => item !== null && item !== undefined)
    .map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))
    .filter((text) => text !== '' && text.length <= maxValueLength);
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
