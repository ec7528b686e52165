/**
 * Runs `task` on every item, at most `limit` at once, starting them in the items' order; answers
 * the results in the items' order. What a request or a batch controls (keys to read, items to
 * write) never fans out into more calls in flight than this, however many there are.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** `mapLimited` for tasks whose results nobody reads. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  await mapLimited(items, limit, task);
}
