import { z } from 'zod';
import { HttpError } from '../errors/http-error.ts';
import { route, type Route } from '../http/route.ts';
import { presentSite } from './present.ts';
import { findSite, insertSite, listAllSites, listSitesOfAccount, updateSite } from './repo.ts';
import { SiteSchema, SiteSubmitSchema, SiteUpdateSchema } from './schemas.ts';

export const siteRoutes: Route[] = [
  route({
    method: 'GET',
    path: '/api/v1/me/sites',
    auth: { kind: 'business', scopes: ['sites:read'] },
    response: z.object({ data: z.array(SiteSchema) }),
    docs: { summary: 'Sites the caller may act on', tags: ['sites'] },
    handler: async ({ principal: p }, app) => {
      let rows: Awaited<ReturnType<typeof listAllSites>>;
      if (p.kind === 'credential') {
        const own = await findSite(app.db, p.siteId);
        rows = own ? [own] : [];
      } else {
        rows = p.admin ? await listAllSites(app.db) : await listSitesOfAccount(app.db, p.accountId);
      }
      return { body: { data: rows.map(presentSite) } };
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/me/sites',
    auth: { kind: 'business', scopes: ['sites:write'], sessionOnly: true },
    body: SiteSubmitSchema,
    response: SiteSchema,
    docs: { summary: 'Submit a site for review', tags: ['sites'] },
    handler: async (ctx, app) => {
      const site = await insertSite(app.db, ctx.principal.accountId, ctx.body);
      ctx.log.info({ siteId: site.id }, 'site submitted');
      return { body: presentSite(site) };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId',
    auth: { kind: 'business', scopes: ['sites:read'] },
    response: SiteSchema,
    docs: { summary: 'The site profile', tags: ['sites'] },
    handler: async ({ params }, app) => {
      const site = await findSite(app.db, params.siteId);
      if (!site) throw new HttpError('site_forbidden');
      return { body: presentSite(site) };
    },
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/sites/:siteId',
    auth: { kind: 'business', scopes: ['sites:write'], sessionOnly: true },
    body: SiteUpdateSchema,
    response: SiteSchema,
    docs: { summary: 'Update a site; a change of public content returns it to review', tags: ['sites'] },
    handler: async ({ params, body }, app) => ({ body: presentSite(await updateSite(app.db, params.siteId, body)) }),
  }),
];
