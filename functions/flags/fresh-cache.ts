/**
 * A per-container cache of values that are read again once `ttlMs` old, so a change made elsewhere
 * (another Lambda) shows within that window, while steady traffic costs one read per window:
 * - concurrent misses of one key share a single load;
 * - a failed reload falls back to the last value read (then retried after another window), so a
 *   storage hiccup does not turn into failed requests; with nothing cached the failure propagates.
 * Bounded: past `maxEntries` it starts afresh rather than grow with every key ever asked for.
 */
export class FreshCache<K, V> {
  private readonly entries = new Map<K, { value: V; expires: number }>();
  private readonly loading = new Map<K, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly onStaleServed: (key: K, error: unknown) => void = () => undefined,
  ) {}

  async get(key: K, load: (key: K) => Promise<V>, now = Date.now()): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.expires > now) return entry.value;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const loaded = this.reload(key, load, now);
    this.loading.set(key, loaded);
    try {
      return await loaded;
    } finally {
      this.loading.delete(key);
    }
  }

  private async reload(key: K, load: (key: K) => Promise<V>, now: number): Promise<V> {
    try {
      const value = await load(key);
      if (this.entries.size >= this.maxEntries && !this.entries.has(key)) this.entries.clear();
      this.entries.set(key, { value, expires: now + this.ttlMs });
      return value;
    } catch (error) {
      const stale = this.entries.get(key);
      if (!stale) throw error;
      this.onStaleServed(key, error);
      stale.expires = now + this.ttlMs;
      return stale.value;
    }
  }
}
