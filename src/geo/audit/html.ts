import { Parser } from 'htmlparser2';

/** What an audit reads off a page's HTML, as served (no script runs). */
export interface PageFacts {
  title: string | null;
  metaDescription: string | null;
  canonical: string | null;
  /** `og:*` properties, first value of each. */
  openGraph: Record<string, string>;
  lang: string | null;
  h1Count: number;
  /** schema.org `@type`s of every JSON-LD block, `@graph` members included. */
  jsonLdTypes: string[];
  /** JSON-LD blocks that are not valid JSON. */
  jsonLdInvalid: number;
  /** Characters of visible text, whitespace collapsed. */
  textLength: number;
}

// Text inside these is not shown to a reader (or, for svg, is a drawing's label).
const HIDDEN = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'svg', 'iframe', 'object']);

/** Reads the facts in one streaming pass; malformed HTML is read as browsers would, forgivingly. */
export function readPage(html: string): PageFacts {
  const facts: PageFacts = {
    title: null,
    metaDescription: null,
    canonical: null,
    openGraph: {},
    lang: null,
    h1Count: 0,
    jsonLdTypes: [],
    jsonLdInvalid: 0,
    textLength: 0,
  };
  const open: string[] = [];
  let hidden = 0;
  let title: string | null = null;
  let jsonLd: string | null = null;
  let lastWasSpace = true;

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        open.push(name);
        if (HIDDEN.has(name)) hidden++;
        if (name === 'html' && attrs.lang !== undefined && facts.lang === null) facts.lang = attrs.lang.trim() || null;
        else if (name === 'title' && facts.title === null && !open.includes('svg')) title = '';
        else if (name === 'h1') facts.h1Count++;
        else if (name === 'script' && attrs.type?.trim().toLowerCase() === 'application/ld+json') jsonLd = '';
        else if (name === 'meta') {
          const key = (attrs.property ?? attrs.name ?? '').trim().toLowerCase();
          const content = attrs.content?.trim() ?? '';
          if (key === 'description' && facts.metaDescription === null) facts.metaDescription = content;
          else if (key.startsWith('og:') && content && !(key in facts.openGraph)) facts.openGraph[key] = content;
        } else if (
          name === 'link' &&
          facts.canonical === null &&
          (attrs.rel ?? '').toLowerCase().split(/\s+/).includes('canonical')
        ) {
          facts.canonical = attrs.href?.trim() ?? '';
        }
      },
      ontext(text) {
        if (title !== null) title += text;
        if (jsonLd !== null) jsonLd += text;
        if (hidden > 0) return;
        let collapsed = text.replace(/\s+/g, ' ');
        if (lastWasSpace && collapsed.startsWith(' ')) collapsed = collapsed.slice(1);
        if (!collapsed) return;
        facts.textLength += collapsed.length;
        lastWasSpace = collapsed.endsWith(' ');
      },
      onclosetag(name) {
        const i = open.lastIndexOf(name);
        if (i >= 0) open.length = i;
        if (HIDDEN.has(name)) hidden = Math.max(0, hidden - 1);
        if (name === 'title' && title !== null) {
          facts.title = title.replace(/\s+/g, ' ').trim();
          title = null;
        } else if (name === 'script' && jsonLd !== null) {
          collectJsonLd(jsonLd, facts);
          jsonLd = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  // Whitespace is collapsed, not trimmed, as it goes: a final space is no text.
  if (lastWasSpace && facts.textLength > 0) facts.textLength--;
  return facts;
}

function collectJsonLd(text: string, facts: PageFacts): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    facts.jsonLdInvalid++;
    return;
  }
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const item of v) visit(item);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    for (const t of [o['@type']].flat())
      if (typeof t === 'string' && !facts.jsonLdTypes.includes(t)) facts.jsonLdTypes.push(t);
    if (o['@graph']) visit(o['@graph']);
  };
  visit(value);
}
