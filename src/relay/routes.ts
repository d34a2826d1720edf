import type { AppContext } from '../app-context.ts';
import { HttpError } from '../errors/http-error.ts';
import type { RequestContext } from '../http/context.ts';
import { mergeHeaders } from '../http/headers.ts';
import { z } from 'zod';
import { route, type Route, type RouteRequest } from '../http/route.ts';
import type { ModelCall } from './call.ts';
import { droppedHeader } from './convert/fields.ts';
import { customerOf } from './customer.ts';
import type { Model } from './directory.ts';
import { meteredCost, type MeteredCost } from './money.ts';
import { estimateOf, reservationFor, type Ticket } from './spend.ts';
import type { Protocol } from './protocol.ts';
import { isStream, parseRelayRequest, RELAY_BODY_SCHEMAS } from './request.ts';
import { noUsage, type Usage } from './usage.ts';

const relayAuth = { kind: 'relay' } as const;
/** A call that never resolved a model has no price to speak of. */
const NO_COST: MeteredCost = { cost_nanos: null, currency: null, unpriced: false };

/** POST /v1/responses, /v1/chat/completions, /v1/embeddings: authenticate, route, deliver, meter. */
function callHandler(protocol: Protocol) {
  return async (ctx: RouteRequest<unknown, undefined, undefined, null>, app: AppContext): Promise<void> => {
    const relay = app.relay;
    const key = await relay.keys.authenticate(ctx.headers.authorization);
    const started = performance.now();
    const at = Date.now();
    let ttfb: number | null = null;
    let status = 0;
    let model = '';
    let resolved: Model | null = null;
    let stream = false;
    let channelId: string | null = null;
    let usage: Usage = noUsage();
    let ticket: Ticket | null = null;
    let estimated = 0;
    let customer: string | null = null;
    try {
      const request = parseRelayRequest(protocol, ctx.json());
      model = request.body.model;
      customer = customerOf(ctx.headers, request.body);
      stream = isStream(request);
      resolved = await relay.directory.modelFor(key, model);
      const estimate = estimateOf(request, ctx.rawBody.length);
      estimated = estimate.input + estimate.output;
      ticket = await relay.spending.admit(
        key,
        key.rpm ?? app.config.RATE_LIMIT_RELAY_KEY_PER_MIN,
        reservationFor(key, resolved, at, estimate),
      );
      Object.assign(ctx.responseHeaders, ticket.headers);
      const call = await relay.callModel({ request, raw: ctx.rawBody, model: resolved }, ctx.reply.signal);
      channelId = call.channel.id;
      usage = call.usage;
      if (call.dropped.length)
        ctx.log.info(
          { dropped: call.dropped, model, channel: call.channel.name },
          'relay: fields the channel cannot take were left out',
        );
      await deliver(ctx, call, () => (ttfb ??= performance.now() - started));
      status = ctx.reply.aborted ? 499 : call.status;
    } catch (err) {
      // A client that hung up needs no answer, and its abort is not a server fault to log.
      if (ctx.reply.aborted) {
        status = 499;
        return;
      }
      status = err instanceof HttpError ? err.status : 500;
      if (ctx.reply.started) {
        status = 502;
        throw new HttpError('upstream_error', { detail: 'The upstream stream broke off.', cause: err });
      }
      throw err;
    } finally {
      if (model) {
        app.metrics.relayTokens.inc({ model, direction: 'input' }, usage.input_tokens ?? 0);
        app.metrics.relayTokens.inc({ model, direction: 'output' }, usage.output_tokens ?? 0);
        if (ttfb !== null) app.metrics.relayTtfb.observe({ model }, ttfb / 1000);
      }
      const failed = status >= 400 && status !== 499;
      const cost = resolved ? meteredCost(resolved.prices, at, usage, failed) : NO_COST;
      if (ticket) {
        const reported = usage.input_tokens !== null || usage.output_tokens !== null;
        relay.spending.settle(
          ticket,
          reported ? (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) : failed ? 0 : estimated,
          cost.cost_nanos,
        );
      }
      relay.meter.record({
        cost_nanos: cost.cost_nanos,
        currency: cost.currency,
        unpriced: cost.unpriced,
        request_id: ctx.id,
        key_id: key.id,
        model: model.slice(0, 200),
        channel_id: channelId,
        endpoint: protocol,
        stream,
        status,
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cached_tokens: usage.cached_tokens,
        reasoning_tokens: usage.reasoning_tokens,
        ttfb_ms: ttfb === null ? null : Math.round(ttfb),
        duration_ms: Math.round(performance.now() - started),
        site_id: key.siteId,
        customer,
      });
    }
  };
}

/**
 * Sends the call to the client. A stream is forwarded read by read the moment each arrives
 * (see `forward` in call.ts); while a slow client catches up the upstream is not read, so its
 * socket fills and pauses instead of this process's memory.
 */
async function deliver(
  ctx: Pick<RequestContext, 'id' | 'reply' | 'responseHeaders'>,
  call: ModelCall,
  firstByte: () => void,
): Promise<void> {
  const headers = mergeHeaders(ctx.responseHeaders, { 'content-type': call.contentType, 'x-request-id': ctx.id });
  if (call.dropped.length) headers['x-radar-dropped-fields'] = droppedHeader(call.dropped);
  if (!call.stream) {
    firstByte();
    ctx.reply.send(call.status, headers, call.body);
    return;
  }
  const { reply } = ctx;
  headers['cache-control'] = 'no-cache';
  reply.beginStream(call.status, headers);
  await call.pipe({
    write(piece) {
      firstByte();
      return reply.push(piece);
    },
    drain() {
      return reply.drain();
    },
    end(last) {
      if (last !== null) firstByte();
      reply.end(last ?? undefined);
    },
  });
}

/** A model as OpenAI's `GET /v1/models` lists it. */
const ModelEntry = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.int(),
  owned_by: z.string(),
});

function listEntry(m: Model): z.input<typeof ModelEntry> {
  return { id: m.id, object: 'model', created: m.created, owned_by: 'radar' };
}

async function keyOf(ctx: Pick<RequestContext, 'headers'>, app: AppContext) {
  const relay = app.relay;
  return { relay, key: await relay.keys.authenticate(ctx.headers.authorization) };
}

// Besides 400/401/403/404: a provider's own status is passed on; 502 when none answered.
const UPSTREAM_ERRORS = [413, 415, 429, 500, 502, 503] as const;

export const relayRoutes: Route[] = [
  route({
    method: 'POST',
    path: '/v1/responses',
    auth: relayAuth,
    body: RELAY_BODY_SCHEMAS.responses,
    docs: {
      summary: 'Create a model response (Responses protocol)',
      description:
        'Forwarded as sent to a channel speaking Responses, converted for a chat-only channel; `stream: true` answers server-sent events.',
      errors: UPSTREAM_ERRORS,
    },
    handler: callHandler('responses'),
  }),
  route({
    method: 'POST',
    path: '/v1/chat/completions',
    auth: relayAuth,
    body: RELAY_BODY_SCHEMAS.chat,
    docs: {
      summary: 'Create a chat completion',
      description:
        'Forwarded as sent to a channel speaking chat completions, converted for a Responses-only channel; `stream: true` answers server-sent events.',
      errors: UPSTREAM_ERRORS,
    },
    handler: callHandler('chat'),
  }),
  route({
    method: 'POST',
    path: '/v1/embeddings',
    auth: relayAuth,
    body: RELAY_BODY_SCHEMAS.embeddings,
    docs: { summary: 'Create embeddings', errors: UPSTREAM_ERRORS },
    handler: callHandler('embeddings'),
  }),
  route({
    method: 'GET',
    path: '/v1/models',
    auth: relayAuth,
    response: z.object({ object: z.literal('list'), data: z.array(ModelEntry) }),
    docs: { summary: 'List the models this key may call' },
    handler: async (ctx, app) => {
      const { relay, key } = await keyOf(ctx, app);
      return { body: { object: 'list' as const, data: (await relay.directory.modelsFor(key)).map(listEntry) } };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/models/:model',
    auth: relayAuth,
    response: ModelEntry,
    docs: { summary: 'Retrieve a model this key may call' },
    handler: async (ctx, app) => {
      const { relay, key } = await keyOf(ctx, app);
      return { body: listEntry(await relay.directory.modelFor(key, ctx.params.model)) };
    },
  }),
];
