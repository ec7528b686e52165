/** Items in order, cut into runs of `size` (the last one shorter). */
export function chunked<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/**
 * Items in order, cut into runs whose sizes add up to at most `maxBytes` and, when given, of at most
 * `maxItems` items (an item larger than `maxBytes` alone makes a run of its own). Used for S3
 * Export's `uploadMegabytes` (applied before compression, as the plugin's hint says) and for
 * SendMessageBatch calls (10 entries, 1 MiB).
 */
export function chunkBySize<T>(
  items: readonly T[],
  sizeOf: (item: T) => number,
  maxBytes: number,
  maxItems = Number.POSITIVE_INFINITY,
): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (current.length === maxItems || (current.length > 0 && bytes + size > maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
