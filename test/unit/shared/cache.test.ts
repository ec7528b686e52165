import { boundedCache, ReadThroughCache } from '../../../functions/shared/cache';

/** A clock the test moves by hand. */
function fakeClock(start = 1_000) {
  let time = start;
  return {
    now: () => time,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe('ReadThroughCache', () => {
  it('loads once per TTL window, then again', async () => {
    const clock = fakeClock();
    const load = jest.fn(async (key: number) => `value ${key}`);
    const cache = new ReadThroughCache<number, string>({ max: 10, ttlMs: 5_000, clock, load });

    const first = await cache.get(1);
    clock.advance(4_999);
    const cached = await cache.get(1);
    clock.advance(2);
    const reloaded = await cache.get(1);

    expect([first, cached, reloaded]).toEqual(['value 1', 'value 1', 'value 1']);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('shares one load between concurrent misses', async () => {
    let release: (value: string) => void = () => undefined;
    const load = jest.fn(() => new Promise<string>((resolve) => (release = resolve)));
    const cache = new ReadThroughCache<number, string>({ max: 10, ttlMs: 5_000, load });

    const both = Promise.all([cache.get(1), cache.get(1)]);
    release('shared');

    expect(await both).toEqual(['shared', 'shared']);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('serves the last value for another window when a reload fails, and fails when there is none', async () => {
    const clock = fakeClock();
    const onStaleServed = jest.fn();
    let healthy = true;
    const load = jest.fn(async (key: number) => {
      if (!healthy) throw new Error('table unreachable');
      return `value ${key}`;
    });
    const cache = new ReadThroughCache<number, string>({ max: 10, ttlMs: 5_000, clock, load, onStaleServed });
    await cache.get(1);
    healthy = false;
    clock.advance(6_000);

    const stale = await cache.get(1);
    clock.advance(1_000);
    const stillStale = await cache.get(1);

    expect([stale, stillStale]).toEqual(['value 1', 'value 1']);
    expect(onStaleServed).toHaveBeenCalledWith(1, expect.any(Error));
    // The failed reload is not retried within the next window.
    expect(load).toHaveBeenCalledTimes(2);
    await expect(cache.get(2)).rejects.toThrow('table unreachable');
  });

  it('keeps no miss, so keys that do not exist never push out those that do', async () => {
    const load = jest.fn(async (key: string) => (key === 'real' ? 'project' : undefined));
    const cache = new ReadThroughCache<string, string>({ max: 2, ttlMs: 5_000, load });
    await cache.get('real');

    for (let i = 0; i < 100; i++) expect(await cache.get(`random-${i}`)).toBeUndefined();
    expect(await cache.get('real')).toBe('project');

    expect(load).toHaveBeenCalledTimes(101);
  });

  it('drops the least recently used entry past its bound, not the whole cache', async () => {
    const load = jest.fn(async (key: number) => `value ${key}`);
    const cache = new ReadThroughCache<number, string>({ max: 2, ttlMs: 5_000, load });

    for (const key of [1, 2, 1, 3, 1]) await cache.get(key);

    // 2 went when 3 came in; 1, used since, stayed.
    expect(load.mock.calls.map(([key]) => key)).toEqual([1, 2, 3]);
  });
});

describe('boundedCache', () => {
  it('expires entries after the TTL and evicts the least recently used', () => {
    const clock = fakeClock();
    const cache = boundedCache<string, number>({ max: 2, ttlMs: 1_000, clock });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
    clock.advance(1_001);
    expect(cache.get('a')).toBeUndefined();
  });

  it('allocates nothing up front: its storage grows with the entries, not with the bound', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const bounded = boundedCache<string, number>({ max: 5_000_000 });
    const readThrough = new ReadThroughCache<string, number>({ max: 5_000_000, load: async () => 1 });
    const heapAddedMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;

    // Slots for 5 million entries would take hundreds of MB (a cold start's tens of milliseconds at 50,000).
    expect(heapAddedMb).toBeLessThan(20);
    bounded.set('a', 1);
    expect([bounded.get('a'), await readThrough.get('a')]).toEqual([1, 1]);
  });
});
