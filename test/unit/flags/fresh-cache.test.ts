import { FreshCache } from '../../../functions/flags/fresh-cache';

describe('FreshCache: per-container definitions cache', () => {
  it('loads once per TTL window, then again', async () => {
    // Prepare
    const cache = new FreshCache<number, string>(5_000, 10);
    const load = jest.fn(async (key: number) => `value ${key}`);

    // Act
    const first = await cache.get(1, load, 0);
    const cached = await cache.get(1, load, 4_999);
    const reloaded = await cache.get(1, load, 5_000);

    // Assess
    expect([first, cached, reloaded]).toEqual(['value 1', 'value 1', 'value 1']);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('shares one load between concurrent misses', async () => {
    // Prepare
    const cache = new FreshCache<number, string>(5_000, 10);
    let release: (value: string) => void = () => undefined;
    const load = jest.fn(() => new Promise<string>((resolve) => (release = resolve)));

    // Act
    const both = Promise.all([cache.get(1, load, 0), cache.get(1, load, 0)]);
    release('shared');

    // Assess
    expect(await both).toEqual(['shared', 'shared']);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('serves the last value when a reload fails, and fails when there is none', async () => {
    // Prepare
    const onStale = jest.fn();
    const cache = new FreshCache<number, string>(5_000, 10, onStale);
    await cache.get(1, async () => 'old', 0);
    const failing = async (): Promise<string> => {
      throw new Error('table unreachable');
    };

    // Act
    const stale = await cache.get(1, failing, 6_000);
    const missing = cache.get(2, failing, 6_000);

    // Assess
    expect(stale).toBe('old');
    expect(onStale).toHaveBeenCalledWith(1, expect.any(Error));
    await expect(missing).rejects.toThrow('table unreachable');
  });

  it('starts afresh past its bound', async () => {
    // Prepare
    const cache = new FreshCache<number, string>(5_000, 2);
    const load = jest.fn(async (key: number) => `value ${key}`);

    // Act
    for (const key of [1, 2, 3, 1]) await cache.get(key, load, 0);

    // Assess: 1 was dropped when 3 came in
    expect(load).toHaveBeenCalledTimes(4);
  });
});
