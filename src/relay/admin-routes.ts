import { HttpError } from '../errors/http-error.ts';
import { route, type Route } from '../http/route.ts';
import { parseBody } from '../http/validate.ts';
import { isUuid } from '../shared/ids.ts';
import { insertChannel, listChannels, listGroups, listModels, setAccountGroup, upsertGroup, upsertModel, type GroupRow } from './repo.ts';
import { AccountGroupSchema, ChannelCreateSchema, GroupNameSchema, GroupPutSchema, ModelPutSchema } from './schemas.ts';

const admin = { kind: 'business', scopes: [], sessionOnly: true, adminOnly: true } as const;
const tags = ['relay admin'];

export function presentGroup(g: GroupRow) {
  return { name: g.name, models: g.models, requestsPerMinute: g.rpm, tokensPerMinute: g.tpm, createdAt: g.created_at.toISOString(), updatedAt: g.updated_at.toISOString() };
}

function isForeignKeyViolation(err: unknown): boolean {
  return (err as { code?: string }).code === '23503';
}

/** What the platform admin manages: channels, model settings, groups and who is in which. */
export const relayAdminRoutes: Route[] = [
  route({
    method: 'GET',
    path: '/api/v1/relay/channels',
    auth: admin,
    docs: { summary: 'Every upstream channel (never its API key)', tags },
    handler: async (_ctx, app) => ({
      body: {
        data: (await listChannels(app.db)).map((c) => ({
          id: c.id, name: c.name, baseUrl: c.base_url, models: c.models, protocols: c.protocols,
          priority: c.priority, weight: c.weight, enabled: c.enabled, createdAt: c.created_at.toISOString(),
        })),
      },
    }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/relay/channels',
    auth: admin,
    docs: { summary: 'Add an upstream channel and the models it serves', tags, body: ChannelCreateSchema, errors: [409] },
    handler: async (ctx, app) => {
      const body = parseBody(ChannelCreateSchema, ctx);
      try {
        return { body: await insertChannel(app.db, body) };
      } catch (err) {
        if ((err as { code?: string }).code === '23505') {
          throw new HttpError('validation_failed', { errors: [{ path: '/name', message: `a channel named ${body.name} already exists` }] });
        }
        throw err;
      }
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/relay/models',
    auth: admin,
    docs: { summary: 'Every model setting (kind and accepted efforts)', tags },
    handler: async (_ctx, app) => ({ body: { data: await listModels(app.db) } }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/relay/models',
    auth: admin,
    docs: { summary: "Set a model's kind and accepted efforts", tags, body: ModelPutSchema },
    handler: async (ctx, app) => ({ body: await upsertModel(app.db, parseBody(ModelPutSchema, ctx)) }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/relay/groups',
    auth: admin,
    docs: { summary: 'Every group: a named set of models with default limits', tags },
    handler: async (_ctx, app) => ({ body: { data: (await listGroups(app.db)).map(presentGroup) } }),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/relay/groups/:group',
    auth: admin,
    docs: { summary: 'Create or replace a group; its keys follow within a second', tags, body: GroupPutSchema },
    handler: async (ctx, app) => {
      const name = GroupNameSchema.safeParse(ctx.params.group);
      if (!name.success) throw new HttpError('validation_failed', { errors: [{ path: 'path.group', message: name.error.issues[0]!.message }] });
      const body = parseBody(GroupPutSchema, ctx);
      const row = await upsertGroup(app.db, { name: name.data, models: body.models, rpm: body.requestsPerMinute, tpm: body.tokensPerMinute });
      return { body: presentGroup(row) };
    },
  }),
  route({
    method: 'PUT',
    path: '/api/v1/relay/accounts/:accountId/group',
    auth: admin,
    docs: { summary: "Move an account into a group; its keys follow within a second", tags, body: AccountGroupSchema, errors: [404] },
    handler: async (ctx, app) => {
      const accountId = ctx.params.accountId!;
      if (!isUuid(accountId)) throw new HttpError('validation_failed', { errors: [{ path: 'path.accountId', message: 'must be a UUID' }] });
      const { group } = parseBody(AccountGroupSchema, ctx);
      let row;
      try {
        row = await setAccountGroup(app.db, accountId, group);
      } catch (err) {
        if (isForeignKeyViolation(err)) throw new HttpError('validation_failed', { errors: [{ path: '/group', message: `no group named ${group}` }] });
        throw err;
      }
      if (!row) throw new HttpError('not_found', { detail: 'no such account' });
      return { body: { accountId: row.id, group: row.group } };
    },
  }),
];
