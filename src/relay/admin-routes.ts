import { z } from 'zod';
import { HttpError } from '../errors/http-error.ts';
import { route, Uuid, type Route } from '../http/route.ts';
import { fromNanos } from './money.ts';
import {
  insertChannel,
  insertPrice,
  listChannels,
  listCurrentPrices,
  listGroups,
  modelCatalog,
  priceHistory,
  setAccountGroup,
  upsertGroup,
  upsertModel,
  type GroupRow,
  type ModelRow,
  type PriceRow,
} from './repo.ts';
import {
  AccountGroupSchema,
  ChannelCreateSchema,
  GroupNameSchema,
  GroupPutSchema,
  ModelPutSchema,
  PriceCreateSchema,
  PriceQuerySchema,
  RelayChannelAnswer,
  RelayGroupAnswer,
  RelayModelAnswer,
  RelayPriceAnswer,
} from './schemas.ts';
import { isUniqueViolation, isForeignKeyViolation } from '../db/pg-errors.ts';

const admin = { kind: 'business', scopes: [], sessionOnly: true, adminOnly: true } as const;
const tags = ['relay admin'];

export function presentGroup(g: GroupRow): z.input<typeof RelayGroupAnswer> {
  return {
    name: g.name,
    models: g.models,
    requestsPerMinute: g.rpm,
    tokensPerMinute: g.tpm,
    createdAt: g.created_at.toISOString(),
    updatedAt: g.updated_at.toISOString(),
  };
}

/** Amounts per million tokens as decimal strings in the price's currency. */
export function presentPrice(p: PriceRow): z.input<typeof RelayPriceAnswer> {
  return {
    model: p.model,
    currency: p.currency,
    effectiveAt: p.effective_at.toISOString(),
    input: fromNanos(p.input_nanos),
    cachedInput: fromNanos(p.cached_input_nanos),
    output: fromNanos(p.output_nanos),
  };
}

/** A validated price as the repository stores it. */
export function newPrice(p: z.output<typeof PriceCreateSchema>) {
  return {
    model: p.model,
    currency: p.currency,
    inputNanos: p.input,
    cachedInputNanos: p.cachedInput ?? p.input,
    outputNanos: p.output,
    effectiveAt: p.effectiveAt,
  };
}

export function presentModel(m: ModelRow): z.input<typeof RelayModelAnswer> {
  return { id: m.id, efforts: m.efforts, kind: m.kind, allowUnpriced: m.allow_unpriced };
}

/** What the platform admin manages: channels, model settings, groups and who is in which. */
export const relayAdminRoutes: Route[] = [
  route({
    method: 'GET',
    path: '/api/v1/relay/channels',
    auth: admin,
    response: z.object({ data: z.array(RelayChannelAnswer) }),
    docs: { summary: 'Every upstream channel (never its API key)', tags },
    handler: async (_ctx, app) => ({
      body: {
        data: (await listChannels(app.db)).map((c) => ({
          id: c.id,
          name: c.name,
          baseUrl: c.base_url,
          models: c.models,
          protocols: c.protocols,
          priority: c.priority,
          weight: c.weight,
          enabled: c.enabled,
          createdAt: c.created_at.toISOString(),
        })),
      },
    }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/relay/channels',
    auth: admin,
    body: ChannelCreateSchema,
    response: z.object({ id: z.uuid() }),
    docs: { summary: 'Add an upstream channel and the models it serves', tags },
    handler: async ({ body }, app) => {
      try {
        return { body: await insertChannel(app.db, body) };
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw new HttpError('validation_failed', {
            errors: [{ path: '/name', message: `a channel named ${body.name} already exists` }],
          });
        }
        throw err;
      }
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/relay/models',
    auth: admin,
    response: z.object({
      data: z.array(
        RelayModelAnswer.extend({
          efforts: RelayModelAnswer.shape.efforts.nullable(),
          kind: RelayModelAnswer.shape.kind.nullable(),
          price: RelayPriceAnswer.nullable(),
        }),
      ),
    }),
    docs: {
      summary: 'Every model a channel serves or a setting names, with its settings and the price in force',
      description:
        '`price` is null for an unpriced model; `efforts` and `kind` are null when never set (defaults apply).',
      tags,
    },
    handler: async (_ctx, app) => {
      const [models, prices] = await Promise.all([modelCatalog(app.db), listCurrentPrices(app.db)]);
      const now = Date.now();
      const current = new Map<string, PriceRow>();
      // Newest first per model: the first one already in force is the current price.
      for (const p of prices) if (p.effective_at.getTime() <= now && !current.has(p.model)) current.set(p.model, p);
      return {
        body: {
          data: models.map((m) => {
            const price = current.get(m.id);
            return {
              id: m.id,
              efforts: m.efforts,
              kind: m.kind,
              allowUnpriced: m.allow_unpriced,
              price: price ? presentPrice(price) : null,
            };
          }),
        },
      };
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/relay/models',
    auth: admin,
    body: ModelPutSchema,
    response: RelayModelAnswer,
    docs: {
      summary: "Set a model's kind, accepted efforts and whether keys with a budget may call it unpriced",
      tags,
    },
    handler: async ({ body }, app) => ({ body: presentModel(await upsertModel(app.db, body)) }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/relay/prices',
    auth: admin,
    query: PriceQuerySchema,
    response: z.object({ data: z.array(RelayPriceAnswer) }),
    docs: { summary: 'Price history, newest first per model (amounts per million tokens)', tags },
    handler: async ({ query }, app) => ({
      body: { data: (await priceHistory(app.db, query.model ?? null)).map(presentPrice) },
    }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/relay/prices',
    auth: admin,
    body: PriceCreateSchema,
    response: RelayPriceAnswer,
    docs: {
      summary: "Set a model's price per million tokens from now (or a later effectiveAt) on",
      description: 'Reasoning tokens are billed as output. Calls already made keep the cost they were metered with.',
      tags,
    },
    handler: async ({ body: p }, app) => {
      try {
        return { body: presentPrice(await insertPrice(app.db, newPrice(p))) };
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw new HttpError('validation_failed', {
            errors: [{ path: '/effectiveAt', message: 'the model already has a price taking effect at this instant' }],
          });
        }
        throw err;
      }
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/relay/groups',
    auth: admin,
    response: z.object({ data: z.array(RelayGroupAnswer) }),
    docs: { summary: 'Every group: a named set of models with default limits', tags },
    handler: async (_ctx, app) => ({ body: { data: (await listGroups(app.db)).map(presentGroup) } }),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/relay/groups/:group',
    auth: admin,
    params: z.object({ group: GroupNameSchema }),
    body: GroupPutSchema,
    response: RelayGroupAnswer,
    docs: { summary: 'Create or replace a group; its keys follow within a second', tags },
    handler: async ({ params, body }, app) => {
      const row = await upsertGroup(app.db, {
        name: params.group,
        models: body.models,
        rpm: body.requestsPerMinute,
        tpm: body.tokensPerMinute,
      });
      return { body: presentGroup(row) };
    },
  }),
  route({
    method: 'PUT',
    path: '/api/v1/relay/accounts/:accountId/group',
    auth: admin,
    params: z.object({ accountId: Uuid }),
    body: AccountGroupSchema,
    response: z.object({ accountId: z.uuid(), group: z.string() }),
    docs: { summary: 'Move an account into a group; its keys follow within a second', tags, errors: [404] },
    handler: async ({ params: { accountId }, body: { group } }, app) => {
      let row: Awaited<ReturnType<typeof setAccountGroup>>;
      try {
        row = await setAccountGroup(app.db, accountId, group);
      } catch (err) {
        if (isForeignKeyViolation(err))
          throw new HttpError('validation_failed', {
            errors: [{ path: '/group', message: `no group named ${group}` }],
          });
        throw err;
      }
      if (!row) throw new HttpError('not_found', { detail: 'no such account' });
      return { body: { accountId: row.id, group: row.group } };
    },
  }),
];
