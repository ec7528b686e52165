/**
 * How many times `run` calls `compare` through `Array.prototype.sort` (and `toSorted`): a
 * deterministic measure of the work of sorting, where a timing would measure the machine. Sorts by
 * any other comparator run as before and are not counted.
 */
export async function comparisonsOf<A, T>(
  compare: (a: A, b: A) => number,
  run: () => Promise<T>,
): Promise<{ result: T; compared: number }> {
  let compared = 0;
  const counting = (a: A, b: A) => {
    compared++;
    return compare(a, b);
  };
  const proto = Array.prototype as unknown as Record<string, (comparator?: unknown) => unknown>;
  const originals = { sort: proto.sort!, toSorted: proto.toSorted! };
  for (const [name, original] of Object.entries(originals)) {
    proto[name] = function (this: unknown[], comparator?: unknown) {
      return original.call(this, comparator === compare ? counting : comparator);
    };
  }
  try {
    const result = await run();
    return { result, compared };
  } finally {
    Object.assign(proto, originals);
  }
}
