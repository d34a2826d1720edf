import { HttpError } from '../errors/http-error.ts';
import { route, type Route } from '../http/route.ts';
import { parseBody } from '../http/validate.ts';
import { isUuid } from '../shared/ids.ts';
import { presentGroup } from './admin-routes.ts';
import { createAccountKey, presentKey, updateAccountKey } from './owned-keys.ts';
import { deleteKey, groupOfAccount, listKeysOfAccount } from './repo.ts';
import { KeyCreateSchema, KeyPatchSchema } from './schemas.ts';

// Keys spend money: like credentials, only a logged-in account manages them.
const own = { kind: 'business', scopes: [], sessionOnly: true } as const;
const tags = ['relay keys'];

function keyIdOf(params: Readonly<Record<string, string>>): string {
  const id = params.keyId!;
  // A malformed id cannot name a key of the caller's: the same 404 as a foreign one.
  if (!isUuid(id)) throw new HttpError('not_found', { detail: 'you have no such relay key' });
  return id;
}

/** An account's own relay keys, each limited to models of the account's group. */
export const relayKeyRoutes: Route[] = [
  route({
    method: 'GET',
    path: '/api/v1/me/relay-group',
    auth: own,
    docs: { summary: "The caller's relay group: the models its keys may call and the default limits", tags },
    handler: async (ctx, app) => {
      const group = await groupOfAccount(app.db, ctx.principal!.accountId);
      if (!group) throw new HttpError('unauthenticated', { detail: 'account no longer exists' });
      return { body: presentGroup(group) };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/me/relay-keys',
    auth: own,
    docs: { summary: "The caller's relay keys, newest first (never the keys themselves)", tags },
    handler: async (ctx, app) => ({
      body: { data: (await listKeysOfAccount(app.db, ctx.principal!.accountId)).map(presentKey) },
    }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/me/relay-keys',
    auth: own,
    docs: { summary: 'Create a relay key; the key is returned once', tags, body: KeyCreateSchema },
    handler: async (ctx, app) => {
      const body = parseBody(KeyCreateSchema, ctx);
      const { row, key } = await createAccountKey(app.db, ctx.principal!.accountId, body);
      ctx.log.info({ relayKeyId: row.id }, 'relay key created');
      return { headers: { 'cache-control': 'no-store' }, body: { ...presentKey(row), key } };
    },
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/me/relay-keys/:keyId',
    auth: own,
    docs: {
      summary: 'Change one of your relay keys: name, disabled, limits, budget, expiry, site',
      description: 'Only the fields given change; null clears a setting. Takes effect within a second.',
      tags,
      body: KeyPatchSchema,
      errors: [404],
    },
    handler: async (ctx, app) => {
      const id = keyIdOf(ctx.params);
      const row = await updateAccountKey(app.db, ctx.principal!.accountId, id, parseBody(KeyPatchSchema, ctx));
      if (!row) throw new HttpError('not_found', { detail: 'you have no such relay key' });
      return { body: presentKey(row) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/me/relay-keys/:keyId',
    auth: own,
    docs: {
      summary: 'Delete one of your relay keys: it stops working within a second, its metered calls stay',
      tags,
      errors: [404],
    },
    handler: async (ctx, app) => {
      const row = await deleteKey(app.db, ctx.principal!.accountId, keyIdOf(ctx.params));
      if (!row) throw new HttpError('not_found', { detail: 'you have no such relay key' });
      return { body: presentKey(row) };
    },
  }),
];
