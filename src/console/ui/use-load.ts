import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../api/client.ts';

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `key` changes; a slower answer for an older key never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ key: string; data: T | null; error: ApiError | null; loading: boolean }>({
    key,
    data: null,
    error: null,
    loading: true,
  });
  const [round, setRound] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `load` is a fresh closure each render; `key` says when what it loads changed.
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, key, loading: true, error: null }));
    load().then(
      (data) => current && setState({ key, data, error: null, loading: false }),
      (err: unknown) =>
        current &&
        setState({ key, data: null, error: err instanceof ApiError ? err : new ApiError(0, null), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [key, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  // Until the effect for a new key has run, the state still describes the old one.
  return { data: state.data, error: state.error, loading: state.loading || state.key !== key, reload };
}
