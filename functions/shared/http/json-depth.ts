/**
 * How deep a request's JSON may nest arrays and objects: PostHog's Rust capture refuses deeper
 * documents (serde_json's recursion limit). Without a limit, JSON.parse (which does not recurse)
 * accepts any depth, and the first recursive step after it — JSON.stringify, zod, a comparison —
 * overflows the stack: about 4,000 levels on Lambda's main thread, 16,000 in a local worker.
 */
export const maxJsonDepth = 128;

/** Whether a parsed JSON value nests deeper than `max` levels (`{}` and `[]` are one level). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max === 0) return true;
  if (Array.isArray(value)) return value.some((item) => nestsDeeperThan(item, max - 1));
  for (const key in value) if (nestsDeeperThan((value as Record<string, unknown>)[key], max - 1)) return true;
  return false;
}
