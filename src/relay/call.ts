import { HttpError } from '../errors/http-error.ts';
import type { Logger } from '../log.ts';
import type { AbortWatch } from '../shared/abort.ts';
import { conversionFor, type Conversion } from './convert/conversion.ts';
import type { StreamConverter } from './convert/stream.ts';
import { routesFor, type Channel, type Directory, type Model, type Route } from './directory.ts';
import type { Protocol } from './protocol.ts';
import { effortFor, isStream, requestedEffort, withEffort, type RelayRequest } from './request.ts';
import { SseParser } from './sse.ts';
import { UsageScanner } from './usage-scan.ts';
import { homeUnavailable, ResponseIdWatch, type ResponseHomes } from './followups.ts';
import { UsageStripper, wantsUsageAdded, withUsageAsked } from './usage-strip.ts';
import type { BodyConsumer, UpstreamBody, UpstreamPools, UpstreamResponse } from './upstream.ts';
import { BodyTooLarge } from '../errors/body-too-large-error.ts';
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
  /** Request fields the conversion left out (empty on native calls); see convert/fields.ts. */
  dropped: readonly string[];
  status: number;
  contentType: string;
  /** Token counts; for streams, complete once `pipe` has settled. */
  usage: Usage;
}

type Piece = Uint8Array | string;

/** Where a streamed call goes, e.g. a client's HTTP response. */
export interface StreamSink {
  /** What one upstream read produced, to send at once; false when the consumer is full. */
  write(piece: Piece): boolean;
  /** After `write` returned false: resolves when the consumer can take more, false when it has gone. */
  drain(): Promise<boolean>;
  /** The stream is complete, with `last` still to send (null when nothing is left). */
  end(last: Piece | null): void;
}

/**
 * A call the upstream accepted (2xx), in the protocol of the request. A stream is delivered
 * by `pipe`, which settles when the stream has ended (rejecting when it broke off natively
 * or the call was aborted; a converted stream ends in its protocol's failure instead).
 */
export type ModelCall =
  | (CallBase & { stream: false; body: Buffer | string })
  | (CallBase & { stream: true; pipe(sink: StreamSink): Promise<void> });

export interface CallDeps {
  directory: Directory;
  pools: UpstreamPools;
  /** Which channel produced each Responses answer, for follow-ups (null: callers that never follow up). */
  homes: ResponseHomes | null;
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
export async function callModel(deps: CallDeps, input: ModelRequest, signal: AbortWatch): Promise<ModelCall> {
  const { request } = input;
  const model = input.model ?? (await deps.directory.model(request.body.model));
  checkKind(model, request.protocol);
  const effort = effortFor(model, request);
  let routes = routesFor(model, request.protocol);
  if (routes.length === 0) {
    throw new HttpError('invalid_request_error', {
      detail: `The model '${model.id}' is not served on ${ENDPOINT[request.protocol]}.`,
      param: 'model',
    });
  }
  // A follow-up goes to the channel holding the conversation, or nowhere.
  const previous = request.protocol === 'responses' ? request.body.previous_response_id : undefined;
  const home = typeof previous === 'string' && deps.homes ? await deps.homes.channelOf(previous) : null;
  if (home !== null) {
    const route = routes.find((r) => r.channel.id === home && r.upstream === 'responses');
    if (!route)
      throw homeUnavailable(previous as string, `a channel that is disabled or no longer serves '${model.id}'`);
    routes = [route];
  }
  const stream = isStream(request);
  const payloads = new Payloads(request, effort, input.raw);
  const failures: string[] = [];
  let lastStatus = 502;
  for (const route of routes) {
    const payload = payloads.for(route);
    let res: UpstreamResponse;
    try {
      res = await deps.pools.request(route.channel, route.upstream, payload.body, stream, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      failures.push(`channel '${route.channel.name}': ${(err as Error).message}`);
      deps.log.warn(
        { channel: route.channel.name, model: model.id, err },
        'upstream unreachable; trying the next channel',
      );
      continue;
    }
    if (res.statusCode >= 500) {
      failures.push(`channel '${route.channel.name}' answered ${res.statusCode}: ${await errorMessage(res.body)}`);
      lastStatus = res.statusCode;
      deps.log.warn(
        { channel: route.channel.name, model: model.id, status: res.statusCode },
        'upstream failed; trying the next channel',
      );
      continue;
    }
    if (res.statusCode >= 400) {
      const message = await errorMessage(res.body);
      throw new HttpError('upstream_error', {
        status: res.statusCode,
        detail: `The upstream provider rejected the request (${res.statusCode}): ${message}`,
      });
    }
    const { conversion } = payload;
    // Built field by field, not spread (see mergeHeaders in http/headers.ts for why).
    const channel = { id: route.channel.id, name: route.channel.name };
    const converted = conversion !== null;
    const dropped = conversion ? conversion.dropped : NONE_DROPPED;
    const status = res.statusCode;
    const usage = noUsage();
    // A stored native Responses answer: remember its channel for the follow-ups naming it.
    const { homes } = deps;
    const watch =
      homes && !conversion && request.protocol === 'responses' && request.body.store !== false
        ? new ResponseIdWatch((id) => homes.remember(id, channel.id))
        : null;
    if (!stream) {
      const { body, contentType } = await wholeBody(res, conversion, usage);
      if (watch && typeof body !== 'string') watch.push(body);
      return { model, channel, converted, dropped, status, usage, stream: false, contentType, body };
    }
    const stage = conversion
      ? convertedStage(conversion.stream(), usage)
      : payloads.addsUsage
        ? strippedStage(usage)
        : nativeStage(usage, watch);
    const contentType = conversion
      ? 'text/event-stream; charset=utf-8'
      : String(res.headers['content-type'] ?? 'text/event-stream');
    return {
      model,
      channel,
      converted,
      dropped,
      status,
      usage,
      stream: true,
      contentType,
      pipe(sink) {
        return forward(res.body, stage, sink);
      },
    };
  }
  if (home !== null) throw homeUnavailable(previous as string, `${failures[0]}`);
  throw new HttpError('upstream_error', {
    status: lastStatus,
    detail: `No upstream channel could serve the model '${model.id}': ${failures.join('; ')}.`,
  });
}

const NONE_DROPPED: readonly string[] = [];

const ENDPOINT: Readonly<Record<Protocol, string>> = {
  responses: '/v1/responses',
  chat: '/v1/chat/completions',
  embeddings: '/v1/embeddings',
};

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

  /** A native chat stream whose client did not ask for usage: Radar asks for it (and strips it). */
  readonly addsUsage: boolean;

  constructor(
    private readonly request: RelayRequest,
    private readonly effort: string | null,
    private readonly raw: Buffer | undefined,
  ) {
    this.addsUsage = request.protocol === 'chat' && wantsUsageAdded(request.body);
  }

  for(route: Route): { body: string | Buffer; conversion: Conversion | null } {
    if (route.upstream === this.request.protocol) {
      // The client's bytes as sent, unless the effort had to be renamed (minimal → none) or
      // a chat stream has to ask for its usage (see UsageStripper).
      const rewrite = this.effort !== requestedEffort(this.request);
      if (this.native === null) {
        const request = rewrite ? withEffort(this.request, this.effort!) : this.request;
        if (this.addsUsage) this.native = JSON.stringify(withUsageAsked(request.body));
        else this.native = this.raw && !rewrite ? this.raw : JSON.stringify(request.body);
      }
      return { body: this.native, conversion: null };
    }
    this.converted ??= conversionFor(this.request, this.effort);
    return { body: this.converted.body, conversion: this.converted };
  }
}

async function readAll(body: UpstreamBody, limit: number): Promise<Buffer> {
  try {
    return await body.readAll(limit);
  } catch (err) {
    if (err instanceof BodyTooLarge)
      throw new HttpError('upstream_error', { detail: `The upstream answer exceeded ${limit} bytes.` });
    throw err;
  }
}

/** The provider's own error message, for an error that says where it came from. */
async function errorMessage(body: UpstreamBody): Promise<string> {
  const text = (await readAll(body, 1024 * 1024).catch(() => Buffer.alloc(0))).toString('utf8');
  try {
    const j = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    const m = typeof j.error === 'string' ? j.error : (j.error?.message ?? j.message);
    if (m) return m;
  } catch {
    // not JSON: fall through to the text itself
  }
  return text.trim().slice(0, 500) || '(empty body)';
}

async function wholeBody(
  res: UpstreamResponse,
  conversion: Conversion | null,
  usage: Usage,
): Promise<{ body: Buffer | string; contentType: string }> {
  const bytes = await readAll(res.body, MAX_UPSTREAM_BODY);
  const contentType = String(res.headers['content-type'] ?? 'application/json');
  // Native: passed on as sent; only the usage object is read out of it, not the whole answer.
  if (!conversion) {
    new UsageScanner(usage).push(bytes);
    return { body: bytes, contentType };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new HttpError('upstream_error', { detail: 'The upstream provider answered with a body that is not JSON.' });
  }
  readUsage(usageIn(parsed), usage);
  return {
    body: JSON.stringify(conversion.answer(parsed as object, usage)),
    contentType: 'application/json; charset=utf-8',
  };
}

/** What a stream does with the upstream's bytes on their way to the client. */
interface Stage {
  /** What to send before the upstream's first bytes. */
  start(): Piece | null;
  /** What to send for the bytes of one upstream read. */
  take(bytes: Buffer): Piece | null;
  /** What to send last once the upstream ended, or broke off (`failure`); throws to fail the delivery instead. */
  finish(failure?: Error): Piece | null;
}

/** Two pieces as one, so that they leave in one write. */
function concat(a: Piece | null, b: Piece | null): Piece | null {
  if (a === null || b === null) return a ?? b;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  return Buffer.concat([typeof a === 'string' ? Buffer.from(a) : a, typeof b === 'string' ? Buffer.from(b) : b]);
}

/**
 * Forwards an upstream body read by read. undici hands over one piece per HTTP chunk (usually
 * one SSE frame), all in the same tick for one socket read; they are joined and passed on
 * in one write in a microtask right after that read, so nothing waits for the next read,
 * per-read work (the usage scan, SSE parsing) runs once per read instead of once per frame,
 * and uWS frames one HTTP chunk instead of one per frame (each is four small writes, which
 * turn into syscalls of their own once a batch outgrows uWS's 16 KiB cork buffer). When the
 * sink is full the body is paused, which stops reading the upstream socket: a slow client
 * slows the provider through TCP instead of growing memory. The end goes out in the same
 * write as whatever the last read brought.
 */
function forward(body: UpstreamBody, stage: Stage, sink: StreamSink): Promise<void> {
  return new Promise((resolve, reject) => new Forwarding(body, stage, sink, resolve, reject).start());
}

/** One stream on its way (see `forward`); a class rather than closures for the reason `Exchange` in upstream.ts gives. */
class Forwarding implements BodyConsumer {
  private read: Buffer[] = [];
  private scheduled = false;
  private settled = false;
  /** While the sink drains, pieces undici delivered before the pause took effect wait here. */
  private draining = false;
  private readonly flushSoon = this.flush.bind(this);

  constructor(
    private readonly body: UpstreamBody,
    private readonly stage: Stage,
    private readonly sink: StreamSink,
    private readonly resolve: () => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  start(): void {
    this.send(this.stage.start());
    this.body.consume(this);
  }

  data(chunk: Buffer): void {
    this.read.push(chunk);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(this.flushSoon);
  }

  end(failure?: Error): void {
    this.settled = true;
    let last: Piece | null;
    try {
      last = concat(this.take(), this.stage.finish(failure));
    } catch (err) {
      this.reject(err);
      return;
    }
    this.sink.end(last);
    this.resolve();
  }

  private take(): Piece | null {
    const { read } = this;
    if (read.length === 0) return null;
    const bytes = read.length === 1 ? read[0]! : joined(read);
    this.read = [];
    return this.stage.take(bytes);
  }

  private send(piece: Piece | null): void {
    if (piece === null || this.sink.write(piece)) return;
    this.draining = true;
    this.body.pause();
    // A client that went away aborts the upstream request, which settles this through `end`.
    void this.sink.drain().then((open) => {
      this.draining = false;
      if (!open || this.settled) return;
      this.body.resume();
      this.flush();
    });
  }

  private flush(): void {
    this.scheduled = false;
    if (!this.settled && !this.draining) this.send(this.take());
  }
}

// Where the pieces of one upstream read are joined, shared by every stream. Every consumer of
// the joined bytes is done with them before the next read: the sink copies what it is given
// (uWS does, into its cork or backpressure buffer), the SSE parser decodes them to a string,
// and the usage scanner copies the rare object cut by a read boundary. A fresh buffer per
// read would be an ArrayBuffer per read, and under load their external memory alone drives
// V8 into back-to-back full collections (measured: ~70 mark-compacts in 8 s, doubling the CPU
// per stream).
const JOIN = Buffer.allocUnsafeSlow(64 * 1024);

function joined(pieces: readonly Buffer[]): Buffer {
  let size = 0;
  for (const p of pieces) size += p.length;
  if (size > JOIN.length) return Buffer.concat(pieces, size);
  let at = 0;
  for (const p of pieces) at += p.copy(JOIN, at);
  return JOIN.subarray(0, size);
}

/** Native: the bytes pass as they came; only a `usage` object (and a Responses id, when watched) is read. */
function nativeStage(usage: Usage, watch: ResponseIdWatch | null): Stage {
  const scanner = new UsageScanner(usage);
  return {
    start() {
      return null;
    },
    take(bytes) {
      scanner.push(bytes);
      watch?.push(bytes);
      return bytes;
    },
    finish(failure) {
      if (failure) throw failure;
      return null;
    },
  };
}

/** Native, with the usage Radar asked for on the client's behalf taken out again (see UsageStripper). */
function strippedStage(usage: Usage): Stage {
  const stripper = new UsageStripper(usage);
  return {
    start() {
      return null;
    },
    take(bytes) {
      return stripper.take(bytes);
    },
    finish(failure) {
      if (failure) throw failure;
      return stripper.finish();
    },
  };
}

/**
 * Converted frame by frame. An upstream that breaks off mid-stream ends in the client
 * protocol's failure; a client that went away (the body aborts) just fails the delivery.
 */
function convertedStage(conv: StreamConverter, usage: Usage): Stage {
  const parser = new SseParser();
  return {
    start() {
      return conv.start();
    },
    take(bytes) {
      let text = '';
      for (const frame of parser.push(bytes)) text += conv.push(frame.data);
      return text || null;
    },
    finish(failure) {
      // Also when the client went away: what was used so far is still metered.
      Object.assign(usage, conv.usage);
      if (failure?.name === 'AbortError') throw failure;
      return conv.end(failure && `The upstream stream broke off: ${failure.message}`);
    },
  };
}
