import type { AuditCheck } from '../repo.ts';
import type { PageFacts } from './html.ts';
import { parseRobots } from './robots.ts';

/** A document an audit tried to read: what came back, or why nothing did. */
export type Doc =
  | { ok: true; url: string; status: number; contentType: string; text: string }
  | { ok: false; error: string };

/**
 * AI crawlers by what blocking them costs. Answer-time fetchers and assistant search indexes
 * decide whether a page can be cited at all; training crawlers only feed future models, and
 * keeping them out is a legitimate choice, so blocking them is a warning, not a failure.
 */
export const AI_CRAWLERS = {
  answering: ['OAI-SearchBot', 'ChatGPT-User', 'Claude-SearchBot', 'PerplexityBot'],
  training: ['GPTBot', 'ClaudeBot', 'Google-Extended', 'Applebot-Extended', 'CCBot'],
} as const;

/** How much each check counts in the score; pass earns all, warn half, fail nothing. */
export const CHECK_WEIGHTS: Readonly<Record<string, number>> = {
  https: 2,
  robots_ai_crawlers: 3,
  llms_txt: 1,
  sitemap: 1,
  title: 2,
  meta_description: 1,
  canonical: 1,
  open_graph: 1,
  lang: 1,
  h1: 1,
  structured_data: 2,
  server_rendered_text: 3,
};

const check = (id: string, status: AuditCheck['status'], detail: string): AuditCheck => ({ id, status, detail });

/** 0–100: the weighted share of points earned, rounded. */
export function scoreOf(checks: readonly AuditCheck[]): number {
  let earned = 0;
  let total = 0;
  for (const c of checks) {
    const w = CHECK_WEIGHTS[c.id] ?? 0;
    total += w;
    earned += c.status === 'pass' ? w : c.status === 'warn' ? w / 2 : 0;
  }
  return total === 0 ? 0 : Math.round((100 * earned) / total);
}

/** Every check of a page that was read, in a fixed order. */
export function runChecks(page: { url: string; facts: PageFacts }, robots: Doc, llms: Doc, sitemap: Doc): AuditCheck[] {
  const f = page.facts;
  return [
    httpsCheck(page.url),
    robotsCheck(page.url, robots),
    llmsCheck(llms),
    sitemapCheck(sitemap),
    lengthCheck('title', 'title', f.title, 10, 60),
    lengthCheck('meta_description', 'meta description', f.metaDescription, 50, 160),
    canonicalCheck(page.url, f.canonical),
    openGraphCheck(f.openGraph),
    f.lang
      ? check('lang', 'pass', `<html lang="${f.lang}">`)
      : check('lang', 'fail', '<html> has no lang attribute; assistants guess the language instead'),
    f.h1Count === 1
      ? check('h1', 'pass', 'one <h1>')
      : f.h1Count === 0
        ? check('h1', 'fail', 'no <h1>')
        : check('h1', 'warn', `${f.h1Count} <h1> elements; one names the page best`),
    structuredDataCheck(f),
    textCheck(f.textLength),
  ];
}

function httpsCheck(url: string): AuditCheck {
  return url.startsWith('https:')
    ? check('https', 'pass', 'served over HTTPS')
    : check('https', 'fail', `served over plain HTTP (${url})`);
}

/**
 * A text file that is really there: 2xx, and not an HTML page that a single-page app serves
 * for every path, missing files included.
 */
function present(doc: Doc): Extract<Doc, { ok: true }> | null {
  if (!doc.ok || doc.status < 200 || doc.status >= 300) return null;
  return /html/i.test(doc.contentType) || /^\s*<(!doctype|html)/i.test(doc.text) ? null : doc;
}

/** Why a document is not there, for a check's detail. */
function absence(doc: Doc): string {
  return doc.ok ? `${doc.url} answered ${doc.status}${doc.status < 300 ? ' with an HTML page' : ''}` : doc.error;
}

function robotsCheck(pageUrl: string, doc: Doc): AuditCheck {
  const id = 'robots_ai_crawlers';
  if (!doc.ok)
    return check(
      id,
      'fail',
      `robots.txt could not be read (${doc.error}); crawlers then treat the whole site as disallowed`,
    );
  if (doc.status >= 500)
    return check(id, 'fail', `robots.txt answered ${doc.status}; crawlers then treat the whole site as disallowed`);
  const file = present(doc);
  if (!file) return check(id, 'pass', `no robots.txt (${absence(doc)}): every crawler may fetch the page`);
  const robots = parseRobots(new URL('/robots.txt', pageUrl).href, file.text);
  const blocked = (bots: readonly string[]) => bots.filter((b) => robots.isAllowed(pageUrl, b) === false);
  const answering = blocked(AI_CRAWLERS.answering);
  const training = blocked(AI_CRAWLERS.training);
  if (answering.length)
    return check(
      id,
      'fail',
      `robots.txt blocks ${answering.join(', ')}${training.length ? ` and ${training.join(', ')}` : ''} from this page; assistants cannot cite it`,
    );
  if (training.length)
    return check(
      id,
      'warn',
      `robots.txt blocks the training crawlers ${training.join(', ')}; the answering crawlers may fetch the page`,
    );
  return check(
    id,
    'pass',
    `all ${AI_CRAWLERS.answering.length + AI_CRAWLERS.training.length} AI crawlers may fetch the page`,
  );
}

/**
 * llms.txt as llmstxt.org describes it: a `# Name` first, an optional `> summary`, then
 * sections whose list items link to the pages worth reading, `- [Title](url): note`.
 */
function llmsCheck(doc: Doc): AuditCheck {
  const id = 'llms_txt';
  const file = present(doc);
  if (!file) return check(id, 'warn', `no llms.txt (${absence(doc)})`);
  const lines = file.text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const problems: string[] = [];
  if (!/^# \S/.test(lines[0] ?? '')) problems.push('the first line is not a "# Title" heading');
  const links = lines.filter((l) => /^[-*] \[[^\]]+\]\([^)\s]+\)/.test(l)).length;
  if (links === 0) problems.push('no "- [title](url)" link list');
  if (lines.filter((l) => /^# /.test(l)).length > 1) problems.push('more than one "# " heading');
  if (problems.length) return check(id, 'warn', `llms.txt is not well formed: ${problems.join('; ')}`);
  return check(id, 'pass', `llms.txt with ${links} link${links === 1 ? '' : 's'}`);
}

function sitemapCheck(doc: Doc): AuditCheck {
  const id = 'sitemap';
  const file = present(doc);
  if (!file) return check(id, 'warn', `no sitemap (${absence(doc)})`);
  if (!/<(urlset|sitemapindex)[\s>]/.test(file.text))
    return check(id, 'warn', `${file.url} is not a sitemap (<urlset> or <sitemapindex> missing)`);
  const locs = (file.text.match(/<loc>/g) ?? []).length;
  return check(id, 'pass', `${file.url} lists ${locs} URL${locs === 1 ? '' : 's'}`);
}

function lengthCheck(id: string, what: string, value: string | null, min: number, max: number): AuditCheck {
  if (!value) return check(id, 'fail', `no ${what}`);
  const n = [...value].length;
  if (n < min) return check(id, 'warn', `${what} is ${n} characters; under ${min} says too little`);
  if (n > max) return check(id, 'warn', `${what} is ${n} characters; over ${max} gets cut off`);
  return check(id, 'pass', `${what} is ${n} characters`);
}

function canonicalCheck(pageUrl: string, canonical: string | null): AuditCheck {
  const id = 'canonical';
  if (canonical === null) return check(id, 'warn', 'no <link rel="canonical">');
  let target: URL;
  try {
    target = new URL(canonical, pageUrl);
  } catch {
    return check(id, 'fail', `canonical "${canonical}" is not a URL`);
  }
  if (target.host !== new URL(pageUrl).host)
    return check(id, 'warn', `canonical points to another host: ${target.href}`);
  return check(id, 'pass', `canonical ${target.href}`);
}

function openGraphCheck(og: Record<string, string>): AuditCheck {
  const wanted = ['og:title', 'og:description', 'og:image'];
  const missing = wanted.filter((k) => !og[k]);
  if (missing.length === 0) return check('open_graph', 'pass', 'og:title, og:description and og:image set');
  if (missing.length === wanted.length) return check('open_graph', 'fail', 'no Open Graph tags');
  return check('open_graph', 'warn', `missing ${missing.join(', ')}`);
}

function structuredDataCheck(f: PageFacts): AuditCheck {
  const id = 'structured_data';
  if (f.jsonLdInvalid > 0)
    return check(
      id,
      'fail',
      `${f.jsonLdInvalid} JSON-LD block${f.jsonLdInvalid === 1 ? ' is' : 's are'} not valid JSON`,
    );
  if (f.jsonLdTypes.length === 0) return check(id, 'warn', 'no schema.org JSON-LD');
  return check(id, 'pass', `schema.org types: ${f.jsonLdTypes.join(', ')}`);
}

/**
 * Most AI crawlers read HTML as served and run no JavaScript: a page whose text appears only
 * after scripts run is nearly empty to them.
 */
function textCheck(chars: number): AuditCheck {
  const id = 'server_rendered_text';
  if (chars >= 500) return check(id, 'pass', `${chars} characters of text in the served HTML`);
  if (chars >= 150) return check(id, 'warn', `only ${chars} characters of text in the served HTML`);
  return check(id, 'fail', `${chars} characters of text in the served HTML; the content seems to need JavaScript`);
}
