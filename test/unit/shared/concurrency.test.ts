import { chunked } from '../../../functions/shared/chunks';
import { mapLimited } from '../../../functions/shared/concurrency';

describe('mapLimited', () => {
  it('answers the results in the items order, with at most `limit` tasks in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapLimited([30, 5, 20, 1, 10], 2, async (ms) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, ms));
      inFlight--;
      return ms * 2;
    });
    expect(results).toEqual([60, 10, 40, 2, 20]);
    expect(most).toBe(2);
  });

  it('answers nothing for no items', async () => {
    await expect(mapLimited([], 4, async () => 1)).resolves.toEqual([]);
  });
});

describe('chunked', () => {
  it('cuts items into runs of a size, in order, the last one shorter', () => {
    expect(chunked([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunked([], 2)).toEqual([]);
  });
});
