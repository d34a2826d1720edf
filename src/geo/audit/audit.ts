import type { AuditCheck } from '../repo.ts';
import { runChecks, scoreOf, type Doc } from './checks.ts';
import { GuardedFetcher, refusalIn, type GuardOptions } from './fetch.ts';
import { AUDIT_LIMITS } from './limits.ts';
import { readPage } from './html.ts';
import { parseRobots } from './robots.ts';

export interface AuditOutcome {
  /** `failed` when the page itself could not be read; its one check says why. */
  status: 'completed' | 'failed';
  finalUrl: string | null;
  score: number;
  checks: AuditCheck[];
  error: string | null;
}

/**
 * Audits one page within AUDIT_LIMITS: the page first (its final URL after redirects decides
 * the origin), then robots.txt and llms.txt of that origin together, then the sitemap robots.txt
 * names (or /sitemap.xml). Every fetch goes through the same guard and shares the 10 s budget.
 */
export async function auditPage(url: string, guard: GuardOptions): Promise<AuditOutcome> {
  const fetcher = new GuardedFetcher(guard);
  const signal = AbortSignal.timeout(AUDIT_LIMITS.totalMs);
  const why = (err: unknown) =>
    refusalIn(err)?.message ??
    (signal.aborted ? `not finished within ${AUDIT_LIMITS.totalMs / 1000} s` : describe(err));
  const failed = (error: string, finalUrl: string | null = null): AuditOutcome => ({
    status: 'failed',
    finalUrl,
    score: 0,
    checks: [{ id: 'page', status: 'fail', detail: error }],
    error,
  });
  try {
    let page: Awaited<ReturnType<typeof fetcher.get>>;
    try {
      page = await fetcher.get(url, signal);
    } catch (err) {
      return failed(why(err));
    }
    if (page.status < 200 || page.status >= 300) return failed(`the page answered ${page.status}`, page.url);
    if (!/html/i.test(page.contentType))
      return failed(`the page is ${page.contentType || 'of no stated type'}, not HTML`, page.url);

    const read = (u: string): Promise<Doc> =>
      fetcher.get(u, signal).then(
        (d) => ({ ok: true, url: d.url, status: d.status, contentType: d.contentType, text: d.body.toString('utf8') }),
        (err: unknown) => ({ ok: false, error: why(err) }),
      );
    const origin = new URL(page.url).origin;
    const [robots, llms] = await Promise.all([read(`${origin}/robots.txt`), read(`${origin}/llms.txt`)]);
    const named =
      robots.ok && robots.status < 300 ? parseRobots(`${origin}/robots.txt`, robots.text).getSitemaps()[0] : undefined;
    const sitemap = await read(named ? new URL(named, origin).href : `${origin}/sitemap.xml`);
    const checks = runChecks({ url: page.url, facts: readPage(page.body.toString('utf8')) }, robots, llms, sitemap);
    return { status: 'completed', finalUrl: page.url, score: scoreOf(checks), checks, error: null };
  } finally {
    await fetcher.close();
  }
}

/** undici names the socket error in `cause` (ECONNREFUSED …) and something vaguer outside. */
function describe(err: unknown): string {
  const e = err as Error & { cause?: Error & { code?: string } };
  return e.cause?.message ? `${e.message}: ${e.cause.message}` : e.message;
}
