import { z } from 'zod';
import { clearedSessionCookie, sessionCookie } from '../auth/cookies.ts';
import { deleteSession } from '../auth/repo.ts';
import { ALL_SCOPES, CREDENTIAL_KINDS } from '../auth/scopes.ts';
import { verifyPassword } from '../auth/secrets.ts';
import { openSession } from '../auth/sessions.ts';
import { HttpError } from '../errors/http-error.ts';
import { route, type Route } from '../http/route.ts';
import { findAccount, findAccountByEmail, presentAccount } from './repo.ts';
import { AccountSchema, LoginSchema, SessionAnswerSchema } from './schemas.ts';

const MeSchema = AccountSchema.extend({
  credential: z
    .object({
      id: z.uuid(),
      siteId: z.uuid(),
      kind: z.enum(CREDENTIAL_KINDS),
      scopes: z.array(z.enum(ALL_SCOPES)),
    })
    .optional()
    .describe('present when a credential calls: the credential, which speaks for its site only'),
});

export const accountRoutes: Route[] = [
  route({
    method: 'POST',
    path: '/api/v1/auth/login',
    auth: { kind: 'public' },
    body: LoginSchema,
    response: SessionAnswerSchema,
    docs: {
      summary: 'Log in with email and password; sets the __Host-radar_session cookie',
      tags: ['account'],
      errors: [401, 403],
    },
    handler: async ({ headers, body }, app) => {
      // Login has no session yet, but a cross-site form posting here could still plant a
      // session of the attacker's: refuse any Origin that is not ours when one is sent.
      if (headers.origin !== undefined && headers.origin !== app.config.PUBLIC_ORIGIN) {
        throw new HttpError('origin_mismatch', { detail: `login is accepted only from ${app.config.PUBLIC_ORIGIN}` });
      }
      const account = await findAccountByEmail(app.db, body.email);
      const ok = await verifyPassword(body.password, account?.password_hash ?? null);
      // A disabled account is told the same as a wrong password: nothing to learn by probing.
      if (!account || !ok || account.disabled_at) throw new HttpError('invalid_credentials');
      const session = await openSession(app.db, account.id, app.config.SESSION_TTL_HOURS);
      return {
        headers: { 'set-cookie': sessionCookie(session.token, session.expiresAt), 'cache-control': 'no-store' },
        body: { account: presentAccount(account), expiresAt: session.expiresAt.toISOString() },
      };
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/auth/logout',
    auth: { kind: 'business', scopes: [], sessionOnly: true },
    response: z.object({ loggedOut: z.boolean() }),
    docs: { summary: 'End the current session and clear its cookie', tags: ['account'] },
    handler: async ({ principal }, app) => {
      await deleteSession(app.db, principal.sessionId);
      return { headers: { 'set-cookie': clearedSessionCookie() }, body: { loggedOut: true } };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/me',
    auth: { kind: 'business', scopes: ['account:read'] },
    response: MeSchema,
    docs: { summary: "The caller's account (and, for a credential, the credential)", tags: ['account'] },
    handler: async ({ principal: p }, app) => {
      const account = await findAccount(app.db, p.accountId);
      if (!account) throw new HttpError('unauthenticated', { detail: 'account no longer exists' });
      const shown = presentAccount(account);
      // A credential speaks for its site, never with the account's admin powers.
      if (p.kind === 'credential') {
        return {
          body: {
            ...shown,
            admin: false,
            credential: { id: p.credentialId, siteId: p.siteId, kind: p.credentialKind, scopes: [...p.scopes] },
          },
        };
      }
      return { body: shown };
    },
  }),
];
