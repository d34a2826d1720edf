export interface FreshCacheOptions {
  /** Age after which an entry is refreshed in the background while still being served. */
  softMs: number;
  /** Age after which an entry is never served: the caller waits for a fresh load. */
  hardMs: number;
  /** Entries kept at most; the oldest goes first. */
  maxEntries: number;
}

interface Entry<V> {
  value: V;
  loadedAt: number;
}

/**
 * A read-through cache that bounds staleness: an entry younger than `softMs` is served as
 * is, one between `softMs` and `hardMs` is served while a background load replaces it, and
 * an older one waits for a load. Under steady traffic a hot entry is thus refreshed before
 * it expires and callers almost never wait, yet no answer is older than `hardMs`.
 * Concurrent loads of one key are shared.
 */
export class FreshCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly loading = new Map<K, Promise<V>>();

  constructor(
    private readonly load: (key: K) => Promise<V>,
    private readonly opts: FreshCacheOptions,
  ) {}

  async get(key: K): Promise<V> {
    const entry = this.entries.get(key);
    const age = entry ? performance.now() - entry.loadedAt : Infinity;
    if (entry && age < this.opts.softMs) return entry.value;
    if (entry && age < this.opts.hardMs) {
      // A failed background load leaves the entry in place until it goes hard-stale.
      this.refresh(key).catch(() => undefined);
      return entry.value;
    }
    return this.refresh(key);
  }

  private refresh(key: K): Promise<V> {
    let p = this.loading.get(key);
    if (p) return p;
    const startedAt = performance.now();
    p = this.load(key).then(
      (value) => {
        this.loading.delete(key);
        // Age counts from the start of the load: the value may be that old already.
        this.entries.delete(key);
        this.entries.set(key, { value, loadedAt: startedAt });
        if (this.entries.size > this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
        return value;
      },
      (err: unknown) => {
        this.loading.delete(key);
        throw err;
      },
    );
    this.loading.set(key, p);
    return p;
  }
}
