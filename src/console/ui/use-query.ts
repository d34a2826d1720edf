import { useLocation, useSearch } from 'wouter';

/**
 * The view's state in the URL's query, so a link (or a reload) reopens the same view: `q` reads
 * it, `set` changes some parameters (null or '' removes one) and keeps the others.
 */
export function useQuery(): { q: URLSearchParams; set: (changes: Record<string, string | null>) => void } {
  const search = useSearch();
  const [path, navigate] = useLocation();
  const set = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    const s = next.toString();
    navigate(s ? `${path}?${s}` : path);
  };
  return { q: new URLSearchParams(search), set };
}
