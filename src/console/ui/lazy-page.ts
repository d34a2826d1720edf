import { type ComponentType, lazy } from 'react';

// biome-ignore lint/suspicious/noExplicitAny: any page component, whatever its props
type PageModule = { default: ComponentType<any> };

/**
 * React.lazy for a page that can be loaded before it is rendered (`preload`). Once its module
 * is in, the page renders at once: React reads a thenable that answers synchronously as already
 * resolved, so it neither suspends nor waits out Suspense's reveal throttle (300 ms in React 19)
 * before showing what is already there.
 */
export function lazyPage<M extends PageModule>(load: () => Promise<M>) {
  let loaded: M | undefined;
  let pending: Promise<M> | undefined;
  const preload = (): Promise<M> => {
    pending ??= load().then((m) => {
      loaded = m;
      return m;
    });
    return pending;
  };
  const page = lazy<M['default']>(() => {
    const done = loaded;
    if (!done) return preload();
    // The synchronous thenable React's lazy accepts: resolved before lazy() returns.
    // biome-ignore lint/suspicious/noThenProperty: a thenable is exactly what is meant here
    return { then: (resolve: (m: M) => void) => resolve(done) } as unknown as Promise<M>;
  });
  return Object.assign(page, { preload });
}
