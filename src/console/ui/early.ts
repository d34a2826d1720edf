/**
 * Requests started before the page that needs them has loaded: the entry bundle starts them
 * as soon as it runs (in parallel with /me and the page's own code), and the page takes each
 * once. A page that renders again later (another view, a reload of data) fetches anew.
 */
const started = new Map<string, Promise<unknown>>();

export function startEarly(key: string, load: () => Promise<unknown>): void {
  const p = load();
  // Nobody may be waiting yet: an error is the page's to show when it takes the answer.
  p.catch(() => undefined);
  started.set(key, p);
}

/** The answer started early for `key`, or `load()` when none was (or it was taken). */
export function takeEarly<T>(key: string, load: () => Promise<unknown>): Promise<T> {
  const p = started.get(key);
  started.delete(key);
  return (p ?? load()) as Promise<T>;
}

/** The answer started early for `key`, left for the page to take (to wait on it first). */
export function peekEarly(key: string): Promise<unknown> | undefined {
  return started.get(key);
}
