/**
 * Items in order, cut into runs whose sizes add up to at most `maxBytes` (an item larger than that
 * alone makes a run of its own): S3 Export's `uploadMegabytes`, applied before compression as the
 * plugin's hint says.
 */
export function chunkBySize<T>(items: readonly T[], sizeOf: (item: T) => number, maxBytes: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (current.length > 0 && bytes + size > maxBytes) {
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
