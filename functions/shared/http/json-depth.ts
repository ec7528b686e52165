/**
 * How deep a request's JSON may nest arrays and objects: PostHog's Rust capture refuses deeper
 * documents (serde_json's recursion limit). Without a limit, JSON.parse (which does not recurse)
 * accepts any depth, and the first recursive step after it — JSON.stringify, zod, a comparison —
 * overflows the stack: about 4,000 levels on Lambda's main thread, 16,000 in a local worker.
 */
export const maxJsonDepth = 128;

/** Whether a parsed JSON value nests deeper than `max` levels (`{}` and `[]` are one level). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  return typeof value === 'object' && value !== null && (max === 0 || childrenNestDeeperThan(value, max - 1));
}

/** Whether a child of `container` nests deeper than `max` levels (plain loops: no closure per array). */
function childrenNestDeeperThan(container: object, max: number): boolean {
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) if (nestsDeeperThan(container[i], max)) return true;
    return false;
  }
  for (const key in container)
    if (nestsDeeperThan((container as Record<string, unknown>)[key], max)) return true;
  return false;
}
