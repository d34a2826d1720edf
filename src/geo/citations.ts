/** A URL an answer cites, normalized; `source` says whether the model annotated it. */
export interface Citation {
  url: string;
  domain: string;
  source: 'annotation' | 'text';
}

// Parameters that only say who sent the visitor; assistants add them to every link they cite
// (`?utm_source=chatgpt.com`), so two citations of one page would otherwise count as two.
const TRACKING = /^(utm_[a-z_]+|gclid|fbclid|msclkid|ref|ref_src)$/i;

/**
 * The canonical form of a cited URL: http(s) only, host lower-cased, default port, fragment and
 * tracking parameters dropped, no trailing slash except on the root. Null when not a web URL.
 */
export function normalizeUrl(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) return null;
  u.hash = '';
  u.username = '';
  u.password = '';
  for (const k of [...u.searchParams.keys()]) if (TRACKING.test(k)) u.searchParams.delete(k);
  if (u.pathname.length > 1) u.pathname = u.pathname.replace(/\/+$/, '') || '/';
  if (u.hostname.endsWith('.')) u.hostname = u.hostname.slice(0, -1);
  return u.href;
}

/** A host without a leading `www.`: how a site's own domain is compared. */
export function bareDomain(host: string): string {
  return host
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^www\./, '');
}

/** True when `domain` is the site's domain or one of its subdomains. */
export function isOwnDomain(domain: string, siteDomain: string): boolean {
  return domain === siteDomain || domain.endsWith(`.${siteDomain}`);
}

// Stops at whitespace, quotes, angle brackets and the brackets markdown wraps links in.
export const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`()[\]{}]+/gi;

/**
 * The URLs an answer cites: first those its annotations name (in order), then those written in
 * its text, each once by normalized URL. Trailing sentence punctuation is not part of a URL.
 */
export function extractCitations(text: string, annotated: readonly string[]): Citation[] {
  const out = new Map<string, Citation>();
  const add = (raw: string, source: Citation['source']) => {
    const url = normalizeUrl(raw);
    if (url && !out.has(url)) out.set(url, { url, domain: bareDomain(new URL(url).hostname), source });
  };
  for (const a of annotated) add(a, 'annotation');
  for (const m of text.matchAll(URL_IN_TEXT)) add(m[0].replace(/[.,;:!?*_]+$/, ''), 'text');
  return [...out.values()];
}
