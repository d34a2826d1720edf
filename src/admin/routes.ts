import { adminExists, setAccountDisabled, insertAccount, listAccounts, presentAccount } from '../accounts/repo.ts';
import { sessionCookie } from '../auth/cookies.ts';
import { hashPassword } from '../auth/secrets.ts';
import { openSession } from '../auth/sessions.ts';
import { HttpError } from '../errors/http-error.ts';
import { route, Uuid, type Route } from '../http/route.ts';
import { AccountSchema, SessionAnswerSchema } from '../accounts/schemas.ts';
import { SiteSchema } from '../sites/schemas.ts';
import { z } from 'zod';
import { presentSite } from '../sites/present.ts';
import { listSitesByStatus, reviewSite } from '../sites/repo.ts';
import {
  AccountCreateSchema,
  AccountUpdateSchema,
  AdminSitesQuerySchema,
  ReviewSchema,
  SetupSchema,
} from './schemas.ts';
import { consumeSetupToken } from './setup.ts';
import { isUniqueViolation } from '../db/pg-errors.ts';

const ADMIN = { kind: 'business', scopes: [], adminOnly: true } as const;

export const adminRoutes: Route[] = [
  route({
    method: 'GET',
    path: '/api/v1/setup',
    auth: { kind: 'public' },
    response: z.object({ open: z.boolean() }),
    docs: { summary: 'Whether the first-run setup is still open (no admin account exists)', tags: ['admin'] },
    handler: async (_ctx, app) => ({
      headers: { 'cache-control': 'no-store' },
      body: { open: !(await adminExists(app.db)) },
    }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/setup',
    auth: { kind: 'public' },
    body: SetupSchema,
    response: SessionAnswerSchema,
    docs: {
      summary: 'Create the platform admin with the one-time link `radar up` printed; logs the admin in',
      tags: ['admin'],
      errors: [403, 409],
    },
    handler: async (ctx, app) => {
      // Like login: a foreign page must not create (and log into) an admin of its choosing.
      if (ctx.headers.origin !== undefined && ctx.headers.origin !== app.config.PUBLIC_ORIGIN) {
        throw new HttpError('origin_mismatch', { detail: `setup is accepted only from ${app.config.PUBLIC_ORIGIN}` });
      }
      const { body } = ctx;
      const passwordHash = await hashPassword(body.password);
      const account = await app.db.tx(async (t) => {
        // One setup at a time, so two tabs cannot both create an admin with one link.
        await t.one("SELECT pg_advisory_xact_lock(hashtext('radar:setup'))");
        if (await adminExists(t))
          throw new HttpError('setup_complete', { detail: 'log in instead, or ask the platform admin for an account' });
        if (!(await consumeSetupToken(t, body.token)))
          throw new HttpError('setup_token_invalid', { detail: 'restart `radar up` for a new link' });
        try {
          return await insertAccount(t, { email: body.email, name: body.name ?? null, passwordHash, admin: true });
        } catch (err) {
          if (isUniqueViolation(err)) throw new HttpError('account_exists', { detail: `${body.email} is taken` });
          throw err;
        }
      });
      const session = await openSession(app.db, account.id, app.config.SESSION_TTL_HOURS);
      ctx.log.info({ accountId: account.id }, 'platform admin created by setup');
      return {
        headers: { 'set-cookie': sessionCookie(session.token, session.expiresAt), 'cache-control': 'no-store' },
        body: { account: presentAccount(account), expiresAt: session.expiresAt.toISOString() },
      };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/admin/accounts',
    auth: ADMIN,
    response: z.object({ data: z.array(AccountSchema.extend({ relayGroup: z.string() })) }),
    docs: {
      summary: 'Every account, oldest first, with the relay group its keys draw models and limits from',
      tags: ['admin'],
    },
    handler: async (_ctx, app) => ({
      body: {
        data: (await listAccounts(app.db)).map((a) => ({ ...presentAccount(a), relayGroup: a.relay_group })),
      },
    }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/admin/accounts',
    auth: ADMIN,
    body: AccountCreateSchema,
    response: AccountSchema,
    docs: { summary: 'Create an account with a password', tags: ['admin'], errors: [409] },
    handler: async ({ body, log }, app) => {
      try {
        const a = await insertAccount(app.db, {
          email: body.email,
          name: body.name ?? null,
          passwordHash: await hashPassword(body.password),
          admin: body.admin,
        });
        log.info({ created: a.id }, 'account created');
        return { body: presentAccount(a) };
      } catch (err) {
        if (isUniqueViolation(err)) throw new HttpError('account_exists', { detail: `${body.email} is taken` });
        throw err;
      }
    },
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/admin/accounts/:accountId',
    auth: ADMIN,
    params: z.object({ accountId: Uuid }),
    body: AccountUpdateSchema,
    response: AccountSchema,
    docs: {
      summary:
        "Disable an account (it cannot log in, its sessions end, its sites' credentials stop) or enable it again",
      tags: ['admin'],
      errors: [404, 422],
    },
    handler: async (ctx, app) => {
      const id = ctx.params.accountId;
      const { disabled } = ctx.body;
      if (disabled && id.toLowerCase() === ctx.principal.accountId)
        throw new HttpError('semantic_invalid', { detail: 'you cannot disable your own account' });
      const a = await setAccountDisabled(app.db, id, disabled);
      if (!a) throw new HttpError('not_found', { detail: `no account ${id}` });
      ctx.log.info({ account: a.id, disabled }, 'account updated');
      return { body: presentAccount(a) };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/admin/sites',
    auth: ADMIN,
    query: AdminSitesQuerySchema,
    response: z.object({ data: z.array(SiteSchema.extend({ ownerEmail: z.string() })) }),
    docs: {
      summary: "Sites in one review status (default pending_review) with their owner's email, oldest change first",
      tags: ['admin'],
    },
    handler: async ({ query: { status } }, app) => {
      const rows = await listSitesByStatus(app.db, status);
      return { body: { data: rows.map((r) => ({ ...presentSite(r), ownerEmail: r.owner_email })) } };
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/admin/sites/:siteId/review',
    auth: ADMIN,
    body: ReviewSchema,
    response: SiteSchema,
    docs: { summary: "The platform admin's decision on a site", tags: ['admin'] },
    handler: async ({ params, body: { decision }, log }, app) => {
      const site = await reviewSite(app.db, params.siteId, decision);
      if (!site) throw new HttpError('site_forbidden');
      log.info({ decision }, 'site reviewed');
      return { body: presentSite(site) };
    },
  }),
];
