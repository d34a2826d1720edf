import { hashSecret, newSecret } from '../auth/secrets.ts';
import { HttpError } from '../errors/http-error.ts';
import { route, type Route } from '../http/route.ts';
import { parseBody } from '../http/validate.ts';
import { isUuid } from '../shared/ids.ts';
import { insertCredential, listCredentials, presentCredential, revokeCredential } from './repo.ts';
import { CredentialCreateSchema } from './schemas.ts';

const manage = { kind: 'business', scopes: ['credentials:manage'], sessionOnly: true } as const;

export const credentialRoutes: Route[] = [
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/credentials',
    auth: manage,
    docs: { summary: 'Credential metadata of the site (never secrets)', tags: ['credentials'] },
    handler: async (ctx, app) => ({
      body: { data: (await listCredentials(app.db, ctx.params.siteId!)).map(presentCredential) },
    }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/sites/:siteId/credentials',
    auth: manage,
    docs: {
      summary: 'Create a credential; the secret is returned once',
      tags: ['credentials'],
      body: CredentialCreateSchema,
    },
    handler: async (ctx, app) => {
      const body = parseBody(CredentialCreateSchema, ctx);
      const secret = newSecret(`rdr_${body.kind}_`);
      const row = await insertCredential(app.db, {
        siteId: ctx.params.siteId!,
        createdBy: ctx.principal!.accountId,
        name: body.name,
        kind: body.kind,
        scopes: body.scopes,
        prefix: secret.slice(0, 12),
        secretHash: hashSecret(secret),
        expiresInDays: body.expiresInDays,
        requestsPerMinute: body.requestsPerMinute,
      });
      ctx.log.info({ siteId: ctx.params.siteId, credentialId: row.id }, 'credential created');
      return { headers: { 'cache-control': 'no-store' }, body: { ...presentCredential(row), secret } };
    },
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/sites/:siteId/credentials/:credentialId',
    auth: manage,
    docs: { summary: 'Revoke a credential at once', tags: ['credentials'], errors: [404] },
    handler: async (ctx, app) => {
      const id = ctx.params.credentialId!;
      const row = isUuid(id) ? await revokeCredential(app.db, ctx.params.siteId!, id) : null;
      if (!row) throw new HttpError('not_found', { detail: 'this site has no such credential' });
      return { body: presentCredential(row) };
    },
  }),
];
