import { LRUCache } from 'lru-cache';

/**
 * Every per-container cache of the functions, on lru-cache: bounded by entries (past the bound the
 * least recently used entry goes, never the whole cache), entries expiring after a TTL, and a clock
 * tests can set. A warm Lambda container keeps these between invocations.
 */

/** Where a cache reads the time (milliseconds): the wall clock by default, a fake in tests. */
export interface Clock {
  now(): number;
}

const wallClock: Clock = { now: () => Date.now() };

/** lru-cache's clock options: read on every lookup (no timer-cached time, which fake timers freeze). */
const clockOptions = (clock: Clock = wallClock) => ({ perf: clock, ttlResolution: 0 });

/**
 * At most `max` entries, by counting each entry as size 1 against lru-cache's `maxSize` rather than
 * setting its `max`: a `max` allocates every slot up front (lru-cache's key, value and link arrays,
 * filled), which for the consumer's 50,000-entry caches cost its cold start tens of milliseconds and
 * their memory before the first entry; counted this way the arrays grow with the entries. Past the
 * bound the least recently used entry goes, as with `max`.
 */
const entryBound = (max: number) => ({ maxSize: max, sizeCalculation: () => 1 });

export interface CacheBounds {
  /** Entries kept at most. */
  readonly max: number;
  /** Milliseconds an entry lives; none: until evicted. */
  readonly ttlMs?: number;
  readonly clock?: Clock;
}

/** A bounded map of what this container has seen (compiled patterns, names bumped today, …). */
export function boundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  bounds: CacheBounds,
): LRUCache<K, V> {
  return new LRUCache<K, V>({
    ...entryBound(bounds.max),
    ...(bounds.ttlMs === undefined ? {} : { ttl: bounds.ttlMs }),
    ...clockOptions(bounds.clock),
  });
}

export interface ReadThroughOptions<K, V, C> extends CacheBounds {
  /**
   * Reads the value; `undefined` means "none", which is not kept (see `ReadThroughCache`). `context`
   * is what the caller passed to `get` (what the load needs and the key must not hold: a secret).
   */
  readonly load: (key: K, context: C) => Promise<V | undefined>;
  /** Called when a reload failed and the last value read was served instead. */
  readonly onStaleServed?: (key: K, error: unknown) => void;
}

/**
 * Values read again once `ttlMs` old, so a change made elsewhere (another Lambda) shows within that
 * window, while steady traffic costs one read per window:
 * - concurrent misses of one key share a single load;
 * - a failed reload serves the last value read, kept for another window before the next attempt, so
 *   a storage hiccup does not turn into failed requests; with nothing cached the failure propagates;
 * - a load that finds nothing (`undefined`) is not kept here: callers that want to remember misses
 *   keep them in a cache of their own, so keys that do not exist (random tokens) can never push out
 *   the ones that do.
 */
export class ReadThroughCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>, C = undefined> {
  private readonly lru: LRUCache<K, V, unknown>;

  constructor(private readonly options: ReadThroughOptions<K, V, C>) {
    this.lru = new LRUCache<K, V, unknown>({
      ...entryBound(options.max),
      ...(options.ttlMs === undefined ? {} : { ttl: options.ttlMs }),
      ...clockOptions(options.clock),
      allowStaleOnFetchRejection: true,
      noDeleteOnFetchRejection: true,
      fetchMethod: async (key, _stale, { context }) => options.load(key, context as C),
    });
  }

  async get(key: K, context?: C): Promise<V | undefined> {
    const status: LRUCache.Status<K, V> = {};
    const value = await this.lru.fetch(key, { status, context });
    if (status.fetchRejected) {
      if (value === undefined) throw status.fetchError ?? new Error('cache load failed');
      // Serve the last value for another window rather than hit a failing table on every request.
      this.lru.set(key, value);
      this.options.onStaleServed?.(key, status.fetchError);
    }
    return value;
  }

  /** Forgets `key` (the next `get` reads it). */
  delete(key: K): void {
    this.lru.delete(key);
  }
}
