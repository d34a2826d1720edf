import type { Dispatcher } from 'undici';
import { HttpError } from '../errors/http-error.ts';
import type { Logger } from '../log.ts';
import { conversionFor, type Conversion } from './convert/conversion.ts';
import type { StreamConverter } from './convert/stream.ts';
import { routesFor, type Channel, type Directory, type Model, type Route } from './directory.ts';
import type { Protocol } from './protocol.ts';
import { effortFor, isStream, requestedEffort, withEffort, type RelayRequest } from './request.ts';
import { SseParser } from './sse.ts';
import type { UpstreamPools } from './upstream.ts';
import { noUsage, readUsage, usageIn, type Usage } from './usage.ts';

export interface ModelRequest {
  request: RelayRequest;
  /** The client's exact bytes, forwarded untouched on native paths. */
  raw?: Buffer;
  /** The model when the caller has resolved it already (e.g. to check a key's permission). */
  model?: Model;
}

interface CallBase {
  model: Model;
  channel: Pick<Channel, 'id' | 'name'>;
  /** True when the channel spoke another protocol and the call was converted. */
  converted: boolean;
  status: number;
  contentType: string;
  /** Token counts; for streams, complete once `chunks` has been read to the end. */
  usage: Usage;
}

/** A call the upstream accepted (2xx), in the protocol of the request. */
export type ModelCall =
  | (CallBase & { stream: false; body: Buffer | string })
  | (CallBase & { stream: true; chunks: AsyncIterable<Uint8Array | string> });

export interface CallDeps {
  directory: Directory;
  pools: UpstreamPools;
  log: Logger;
}

// A body bigger than this from a provider is a fault, not an answer worth buffering.
const MAX_UPSTREAM_BODY = 64 * 1024 * 1024;

/**
 * Calls a model through its channels: validates the effort, tries each route in order
 * (priority, then weight) and fails over on a connect error or a 5xx before the first byte.
 * A 4xx is the client's problem and is passed on. Resolves once a channel has answered 2xx;
 * nothing has been sent to the client yet, so the caller still chooses how to deliver.
 */
export async function callModel(deps: CallDeps, input: ModelRequest, signal: AbortSignal): Promise<ModelCall> {
  const { request } = input;
  const model = input.model ?? (await deps.directory.model(request.body.model));
  checkKind(model, request.protocol);
  const effort = effortFor(model, request);
  const routes = routesFor(model, request.protocol);
  if (routes.length === 0) {
    throw new HttpError('invalid_request_error', { detail: `The model '${model.id}' is not served on ${ENDPOINT[request.protocol]}.`, param: 'model' });
  }
  const stream = isStream(request);
  const payloads = new Payloads(request, effort, input.raw);
  const failures: string[] = [];
  let lastStatus = 502;
  for (const route of routes) {
    const payload = payloads.for(route);
    let res: Dispatcher.ResponseData;
    try {
      res = await deps.pools.request(route.channel, route.upstream, payload.body, stream, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      failures.push(`channel '${route.channel.name}': ${(err as Error).message}`);
      deps.log.warn({ channel: route.channel.name, model: model.id, err }, 'upstream unreachable; trying the next channel');
      continue;
    }
    if (res.statusCode >= 500) {
      failures.push(`channel '${route.channel.name}' answered ${res.statusCode}: ${await errorMessage(res.body)}`);
      lastStatus = res.statusCode;
      deps.log.warn({ channel: route.channel.name, model: model.id, status: res.statusCode }, 'upstream failed; trying the next channel');
      continue;
    }
    if (res.statusCode >= 400) {
      const message = await errorMessage(res.body);
      throw new HttpError('upstream_error', { status: res.statusCode, detail: `The upstream provider rejected the request (${res.statusCode}): ${message}` });
    }
    const { conversion } = payload;
    const base = { model, channel: { id: route.channel.id, name: route.channel.name }, converted: conversion !== null, status: res.statusCode, usage: noUsage() };
    if (!stream) return { ...base, stream: false, ...(await wholeBody(res, conversion, base.usage)) };
    const chunks = conversion ? convertedChunks(res.body, conversion.stream(), base.usage) : nativeChunks(res.body, base.usage);
    const contentType = conversion ? 'text/event-stream; charset=utf-8' : String(res.headers['content-type'] ?? 'text/event-stream');
    return { ...base, stream: true, contentType, chunks };
  }
  throw new HttpError('upstream_error', {
    status: lastStatus,
    detail: `No upstream channel could serve the model '${model.id}': ${failures.join('; ')}.`,
  });
}

const ENDPOINT: Readonly<Record<Protocol, string>> = { responses: '/v1/responses', chat: '/v1/chat/completions', embeddings: '/v1/embeddings' };

function checkKind(model: Model, protocol: Protocol): void {
  const embedding = protocol === 'embeddings';
  if (model.kind === null || (model.kind === 'embedding') === embedding) return;
  throw new HttpError('invalid_request_error', {
    detail: embedding
      ? `The model '${model.id}' is a chat model; it cannot create embeddings.`
      : `The model '${model.id}' is an embedding model; call it on /v1/embeddings.`,
    param: 'model',
  });
}

/** The upstream body per route kind, built once each however many channels are tried. */
class Payloads {
  private native: string | Buffer | null = null;
  private converted: Conversion | null = null;

  constructor(private readonly request: RelayRequest, private readonly effort: string | null, private readonly raw: Buffer | undefined) {}

  for(route: Route): { body: string | Buffer; conversion: Conversion | null } {
    if (route.upstream === this.request.protocol) {
      // The client's bytes as sent, unless the effort had to be renamed (minimal → none).
      const rewrite = this.effort !== requestedEffort(this.request);
      this.native ??= this.raw && !rewrite ? this.raw : JSON.stringify((rewrite ? withEffort(this.request, this.effort!) : this.request).body);
      return { body: this.native, conversion: null };
    }
    this.converted ??= conversionFor(this.request, this.effort);
    return { body: this.converted.body, conversion: this.converted };
  }
}

async function readAll(body: Dispatcher.ResponseData['body'], limit: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      body.destroy();
      throw new HttpError('upstream_error', { detail: `The upstream answer exceeded ${limit} bytes.` });
    }
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

/** The provider's own error message, for an error that says where it came from. */
async function errorMessage(body: Dispatcher.ResponseData['body']): Promise<string> {
  const text = (await readAll(body, 1024 * 1024).catch(() => Buffer.alloc(0))).toString('utf8');
  try {
    const j = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    const m = typeof j.error === 'string' ? j.error : j.error?.message ?? j.message;
    if (m) return m;
  } catch {
    // not JSON: fall through to the text itself
  }
  return text.trim().slice(0, 500) || '(empty body)';
}

async function wholeBody(res: Dispatcher.ResponseData, conversion: Conversion | null, usage: Usage): Promise<{ body: Buffer | string; contentType: string }> {
  const bytes = await readAll(res.body, MAX_UPSTREAM_BODY);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    if (conversion) throw new HttpError('upstream_error', { detail: 'The upstream provider answered with a body that is not JSON.' });
    return { body: bytes, contentType: String(res.headers['content-type'] ?? 'application/json') };
  }
  readUsage(usageIn(parsed), usage);
  if (!conversion) return { body: bytes, contentType: String(res.headers['content-type'] ?? 'application/json') };
  return { body: JSON.stringify(conversion.answer(parsed as object, usage)), contentType: 'application/json; charset=utf-8' };
}

/** Upstream chunks as they come; frames are only scanned for the usage they may carry. */
async function* nativeChunks(body: Dispatcher.ResponseData['body'], usage: Usage): AsyncGenerator<Uint8Array> {
  const parser = new SseParser();
  for await (const chunk of body) {
    for (const frame of parser.push(chunk as Buffer)) {
      if (USAGE_FRAME.test(frame.data)) {
        try {
          readUsage(usageIn(JSON.parse(frame.data)), usage);
        } catch {
          // a frame we cannot read is still forwarded; only its metering is lost
        }
      }
    }
    yield chunk as Buffer;
  }
}

const USAGE_FRAME = /"usage"\s*:\s*\{/;

/**
 * A stream converted frame by frame. An upstream that breaks off mid-stream ends in the
 * client protocol's failure; a client that went away (the body aborts) just ends the iteration.
 */
async function* convertedChunks(body: Dispatcher.ResponseData['body'], conv: StreamConverter, usage: Usage): AsyncGenerator<string> {
  yield conv.start();
  const parser = new SseParser();
  let failure: string | undefined;
  try {
    for await (const chunk of body) {
      let out = '';
      for (const frame of parser.push(chunk as Buffer)) out += conv.push(frame.data);
      if (out) yield out;
    }
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    failure = `The upstream stream broke off: ${(err as Error).message}`;
  } finally {
    // Also when the client went away: what was used so far is still metered.
    Object.assign(usage, conv.usage);
  }
  yield conv.end(failure);
}
