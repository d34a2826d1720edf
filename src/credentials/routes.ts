import { z } from 'zod';
import { hashSecret, newSecret } from '../auth/secrets.ts';
import { HttpError } from '../errors/http-error.ts';
import { route, type Route } from '../http/route.ts';
import { isUuid } from '../shared/ids.ts';
import { insertCredential, listCredentials, presentCredential, revokeCredential } from './repo.ts';
import { CredentialCreateSchema, CredentialSchema } from './schemas.ts';

const manage = { kind: 'business', scopes: ['credentials:manage'], sessionOnly: true } as const;

export const credentialRoutes: Route[] = [
  route({
    method: 'GET',
    path: '/api/v1/sites/:siteId/credentials',
    auth: manage,
    response: z.object({ data: z.array(CredentialSchema) }),
    docs: { summary: 'Credential metadata of the site (never secrets)', tags: ['credentials'] },
    handler: async ({ params }, app) => ({
      body: { data: (await listCredentials(app.db, params.siteId)).map(presentCredential) },
    }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/sites/:siteId/credentials',
    auth: manage,
    body: CredentialCreateSchema,
    response: CredentialSchema.extend({ secret: z.string().describe('shown once, in this answer only') }),
    docs: { summary: 'Create a credential; the secret is returned once', tags: ['credentials'] },
    handler: async ({ params, body, principal, log }, app) => {
      const secret = newSecret(`rdr_${body.kind}_`);
      const row = await insertCredential(app.db, {
        siteId: params.siteId,
        createdBy: principal.accountId,
        name: body.name,
        kind: body.kind,
        scopes: body.scopes,
        prefix: secret.slice(0, 12),
        secretHash: hashSecret(secret),
        expiresInDays: body.expiresInDays,
        requestsPerMinute: body.requestsPerMinute,
      });
      log.info({ siteId: params.siteId, credentialId: row.id }, 'credential created');
      return { headers: { 'cache-control': 'no-store' }, body: { ...presentCredential(row), secret } };
    },
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/sites/:siteId/credentials/:credentialId',
    auth: manage,
    response: CredentialSchema,
    docs: { summary: 'Revoke a credential at once', tags: ['credentials'], errors: [404] },
    handler: async ({ params }, app) => {
      // A malformed id cannot name a credential of the site: the same 404 as a foreign one.
      const row = isUuid(params.credentialId)
        ? await revokeCredential(app.db, params.siteId, params.credentialId)
        : null;
      if (!row) throw new HttpError('not_found', { detail: 'this site has no such credential' });
      return { body: presentCredential(row) };
    },
  }),
];
