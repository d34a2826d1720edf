import type { AppContext } from '../app-context.ts';
import { HttpError } from '../errors/http-error.ts';
import type { RequestContext } from '../http/context.ts';
import { SiteId, type RouteAuth } from '../http/route.ts';
import { findSite } from '../sites/repo.ts';
import type { Principal } from './principal.ts';

const MUTATING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/**
 * Decides whether an authenticated caller may run a business route (CONTRACT §2), in the
 * order a client can act on: CSRF origin, path shape, kind of caller, scopes, then the site.
 */
export async function authorize(
  principal: Principal,
  auth: Extract<RouteAuth, { kind: 'business' }>,
  ctx: RequestContext,
  app: AppContext,
): Promise<void> {
  if (principal.kind === 'session' && MUTATING.has(ctx.method) && ctx.headers.origin !== app.config.PUBLIC_ORIGIN) {
    throw new HttpError('origin_mismatch', {
      detail: `requests with a session cookie that change data need "Origin: ${app.config.PUBLIC_ORIGIN}"`,
    });
  }
  // Before the route's own validation: which site is meant decides who may learn more.
  const site = ctx.params.siteId === undefined ? null : SiteId.safeParse(ctx.params.siteId);
  if (site?.error)
    throw new HttpError('validation_failed', {
      errors: [{ path: 'path.siteId', message: site.error.issues[0]!.message }],
    });
  const siteId = site?.data;
  if (principal.kind === 'credential') {
    if (auth.sessionOnly || auth.adminOnly) {
      throw new HttpError('credential_not_allowed', {
        detail: 'this operation needs a logged-in account; credentials cannot perform it',
      });
    }
    const missing = auth.scopes.filter((s) => !principal.scopes.has(s));
    if (missing.length)
      throw new HttpError('insufficient_scope', { detail: `credential lacks scope ${missing.join(', ')}` });
  }
  if (auth.adminOnly && !(principal.kind === 'session' && principal.admin)) {
    throw new HttpError('admin_required', { detail: 'only the platform admin may do this' });
  }
  if (siteId !== undefined) await assertSiteAccess(principal, siteId, app);
}

/** A foreign site and a missing site answer alike (403), so ids cannot be probed. */
async function assertSiteAccess(principal: Principal, siteId: string, app: AppContext): Promise<void> {
  if (principal.kind === 'credential') {
    if (principal.siteId !== siteId)
      throw new HttpError('site_forbidden', { detail: 'credential belongs to another site' });
    return;
  }
  const site = await findSite(app.db, siteId);
  if (!site || (site.account_id !== principal.accountId && !principal.admin)) {
    throw new HttpError('site_forbidden', { detail: 'site not found or not yours' });
  }
}
