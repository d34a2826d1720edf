import { HttpError } from '../errors/http-error.ts';
import { z } from 'zod';
import { route, type Route } from '../http/route.ts';
import { isUuid } from '../shared/ids.ts';
import { presentGroup } from './admin-routes.ts';
import { createAccountKey, presentKey, updateAccountKey } from './owned-keys.ts';
import { deleteKey, groupOfAccount, listKeysOfAccount } from './repo.ts';
import { KeyCreateSchema, KeyPatchSchema, RelayGroupAnswer, RelayKeyAnswer } from './schemas.ts';

// Keys spend money: like credentials, only a logged-in account manages them.
const own = { kind: 'business', scopes: [], sessionOnly: true } as const;
const tags = ['relay keys'];

/** A malformed id cannot name a key of the caller's: the same 404 as a foreign one. */
function keyIdOf(params: { readonly keyId: string }): string {
  if (!isUuid(params.keyId)) throw new HttpError('not_found', { detail: 'you have no such relay key' });
  return params.keyId;
}

/** An account's own relay keys, each limited to models of the account's group. */
export const relayKeyRoutes: Route[] = [
  route({
    method: 'GET',
    path: '/api/v1/me/relay-group',
    auth: own,
    response: RelayGroupAnswer,
    docs: { summary: "The caller's relay group: the models its keys may call and the default limits", tags },
    handler: async ({ principal }, app) => {
      const group = await groupOfAccount(app.db, principal.accountId);
      if (!group) throw new HttpError('unauthenticated', { detail: 'account no longer exists' });
      return { body: presentGroup(group) };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/me/relay-keys',
    auth: own,
    response: z.object({ data: z.array(RelayKeyAnswer) }),
    docs: { summary: "The caller's relay keys, newest first (never the keys themselves)", tags },
    handler: async ({ principal }, app) => ({
      body: { data: (await listKeysOfAccount(app.db, principal.accountId)).map(presentKey) },
    }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/me/relay-keys',
    auth: own,
    body: KeyCreateSchema,
    response: RelayKeyAnswer.extend({ key: z.string().describe('`sk-…`, shown once, in this answer only') }),
    docs: { summary: 'Create a relay key; the key is returned once', tags },
    handler: async ({ principal, body, log }, app) => {
      const { row, key } = await createAccountKey(app.db, principal.accountId, body);
      log.info({ relayKeyId: row.id }, 'relay key created');
      return { headers: { 'cache-control': 'no-store' }, body: { ...presentKey(row), key } };
    },
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/me/relay-keys/:keyId',
    auth: own,
    body: KeyPatchSchema,
    response: RelayKeyAnswer,
    docs: {
      summary: 'Change one of your relay keys: name, disabled, limits, budget, expiry, site',
      description: 'Only the fields given change; null clears a setting. Takes effect within a second.',
      tags,
      errors: [404],
    },
    handler: async ({ params, principal, body }, app) => {
      const row = await updateAccountKey(app.db, principal.accountId, keyIdOf(params), body);
      if (!row) throw new HttpError('not_found', { detail: 'you have no such relay key' });
      return { body: presentKey(row) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/me/relay-keys/:keyId',
    auth: own,
    response: RelayKeyAnswer,
    docs: {
      summary: 'Delete one of your relay keys: it stops working within a second, its metered calls stay',
      tags,
      errors: [404],
    },
    handler: async ({ params, principal }, app) => {
      const row = await deleteKey(app.db, principal.accountId, keyIdOf(params));
      if (!row) throw new HttpError('not_found', { detail: 'you have no such relay key' });
      return { body: presentKey(row) };
    },
  }),
];
