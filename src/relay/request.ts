import { z } from 'zod';
import { HttpError } from '../errors/http-error.ts';
import type { Model } from './directory.ts';
import type { Protocol } from './protocol.ts';
import { text } from '../shared/text.ts';

// Only what the relay itself reads is checked; every other field is the provider's business
// and passes through (or is converted) untouched.
const Obj = z.looseObject({});
// The model is stored with the call's metering, so it must be text PostgreSQL can hold.
const ModelField = text({ min: 1 });

const ResponsesSchema = z.looseObject({
  model: ModelField,
  input: z.union([z.string(), z.array(Obj)]),
  stream: z.boolean().nullish(),
  reasoning: z.looseObject({ effort: z.string().nullish() }).nullish(),
});

const ChatSchema = z.looseObject({
  model: ModelField,
  messages: z.array(z.looseObject({ role: z.string() })).min(1),
  stream: z.boolean().nullish(),
  reasoning_effort: z.string().nullish(),
});

const EmbeddingsSchema = z.looseObject({
  model: ModelField,
  input: z.union([
    z.string(),
    z.array(z.string()).min(1),
    z.array(z.number().int()).min(1),
    z.array(z.array(z.number().int())).min(1),
  ]),
});

export type ResponsesBody = z.output<typeof ResponsesSchema>;
export type ChatBody = z.output<typeof ChatSchema>;
export type EmbeddingsBody = z.output<typeof EmbeddingsSchema>;

export type RelayRequest =
  | { protocol: 'responses'; body: ResponsesBody }
  | { protocol: 'chat'; body: ChatBody }
  | { protocol: 'embeddings'; body: EmbeddingsBody };

/** What the relay checks of each protocol's body (also its OpenAPI request body). */
export const RELAY_BODY_SCHEMAS = {
  responses: ResponsesSchema,
  chat: ChatSchema,
  embeddings: EmbeddingsSchema,
} as const;

/**
 * Effort fields that belong to another protocol (or to a client's config file) and would
 * be silently ignored upstream; naming the right field beats a request that quietly runs
 * at the default effort.
 */
const FOREIGN_FIELDS: Readonly<Record<Protocol, Readonly<Record<string, string>>>> = {
  responses: {
    reasoning_effort:
      "'reasoning_effort' is the chat-completions name; on /v1/responses send 'reasoning': {'effort': …}.",
    model_reasoning_effort:
      "'model_reasoning_effort' is a client setting, not a request field; send 'reasoning': {'effort': …}.",
  },
  chat: {
    reasoning: "'reasoning' is the Responses name; on /v1/chat/completions send 'reasoning_effort'.",
    model_reasoning_effort:
      "'model_reasoning_effort' is a client setting, not a request field; send 'reasoning_effort'.",
  },
  embeddings: {},
};
/** FOREIGN_FIELDS as lists, listed once instead of on every request. */
const FOREIGN_ENTRIES = Object.fromEntries(
  Object.entries(FOREIGN_FIELDS).map(([protocol, fields]) => [protocol, Object.entries(fields)]),
) as Record<Protocol, [string, string][]>;

/** Checks a parsed JSON body against the protocol's shape: 400 in OpenAI's words when it fails. */
export function parseRelayRequest(protocol: Protocol, value: unknown): RelayRequest {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError('invalid_request_error', { detail: 'The request body must be a JSON object.' });
  }
  for (const [field, message] of FOREIGN_ENTRIES[protocol]) {
    if (field in value)
      throw new HttpError('unsupported_parameter', { detail: `Unsupported parameter: ${message}`, param: field });
  }
  const r = RELAY_BODY_SCHEMAS[protocol].safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const param = issue.path
      .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
      .join('');
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    throw new HttpError('invalid_request_error', {
      detail: missing ? `Missing required parameter: '${param}'.` : `Invalid value for '${param}': ${issue.message}.`,
      param,
    });
  }
  return { protocol, body: r.data } as RelayRequest;
}

/** The effort a request asks for, wherever its protocol puts it. */
export function requestedEffort(req: RelayRequest): string | null {
  if (req.protocol === 'responses') return req.body.reasoning?.effort ?? null;
  if (req.protocol === 'chat') return req.body.reasoning_effort ?? null;
  return null;
}

/**
 * The effort to send upstream: the requested one when the model accepts it; `minimal` as
 * `none` for a model that knows only `none` (the two mean "no reasoning" in different
 * families); otherwise 400 invalid_reasoning_effort naming the accepted values.
 */
export function effortFor(model: Model, req: RelayRequest): string | null {
  const effort = requestedEffort(req);
  if (effort === null || model.efforts.includes(effort)) return effort;
  if (effort === 'minimal' && model.efforts.includes('none')) return 'none';
  throw new HttpError('invalid_reasoning_effort', {
    detail: `Reasoning effort '${effort}' is not supported by the model '${model.id}'. Supported values: ${model.efforts.map((e) => `'${e}'`).join(', ') || 'none (the model takes no effort)'}.`,
    param: req.protocol === 'responses' ? 'reasoning.effort' : 'reasoning_effort',
  });
}

/** The request with its effort field set to `effort` (the native path's only rewrite). */
export function withEffort(req: RelayRequest, effort: string): RelayRequest {
  if (req.protocol === 'responses')
    return { protocol: 'responses', body: { ...req.body, reasoning: { ...req.body.reasoning, effort } } };
  if (req.protocol === 'chat') return { protocol: 'chat', body: { ...req.body, reasoning_effort: effort } };
  return req;
}

/** True when the request asks for a server-sent-event stream. */
export function isStream(req: RelayRequest): boolean {
  return req.protocol !== 'embeddings' && req.body.stream === true;
}
