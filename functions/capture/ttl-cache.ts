/**
 * A per-container cache whose entries expire: what capture knows of a credential is at most `ttlMs`
 * old. Bounded: past `maxEntries` it starts afresh rather than growing with every random token sent.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** The cached value, wrapped so that a cached `undefined` ("no such token") is a hit too. */
  get(key: string, now: number): { readonly value: V } | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expires > now ? hit : undefined;
  }

  set(key: string, value: V, now: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expires: now + this.ttlMs });
  }
}
