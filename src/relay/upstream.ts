import { createRequire } from 'node:module';
import type { Dispatcher } from 'undici';
import type * as Undici from 'undici';
import type { AbortWatch } from '../shared/abort.ts';
import { BodyTooLarge } from '../errors/body-too-large-error.ts';
import type { Channel } from './directory.ts';
import { UPSTREAM_PATH, type Protocol } from './protocol.ts';

type Pool = Undici.Pool;
// undici's index loads fetch, WebSocket, caches and mocks with it (~2.5 MB of heap); the
// relay needs its connection pool alone. undici has no exports map, so its own file it is.
const Pool = createRequire(import.meta.url)('undici/lib/dispatcher/pool.js') as typeof Undici.Pool;

/** Whoever reads a response body, piece by piece as the socket delivers it. */
export interface BodyConsumer {
  /** One piece of the body, as parsed from one socket read. */
  data(chunk: Buffer): void;
  /** The body is complete, or broke off (`error`: the connection failed, or the call was aborted). */
  end(error?: Error): void;
}

export interface UpstreamResponse {
  statusCode: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: UpstreamBody;
}

type Controller = Dispatcher.DispatchController;

// Pieces held for a consumer that has not attached yet (they arrive in the tick of the headers).
const HOLD_BEFORE_CONSUMER = 64 * 1024;

/**
 * The body of an upstream response, pushed to one consumer straight from undici's parser:
 * no stream object, no async iterator, one call per HTTP chunk. `pause` stops reading the
 * upstream socket (undici stops at the next chunk), which is how a slow client's
 * backpressure reaches the provider through TCP instead of this process's memory.
 */
export class UpstreamBody {
  private consumer: BodyConsumer | null = null;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private ended: { error?: Error } | null = null;

  constructor(private readonly controller: Controller) {}

  /** Attaches the consumer; what arrived before is handed over at once. */
  consume(consumer: BodyConsumer): void {
    this.consumer = consumer;
    const held = this.held;
    this.held = [];
    for (const chunk of held) consumer.data(chunk);
    if (this.ended) consumer.end(this.ended.error);
    else if (this.heldBytes > HOLD_BEFORE_CONSUMER) this.controller.resume();
  }

  pause(): void {
    if (!this.ended) this.controller.pause();
  }

  resume(): void {
    if (!this.ended) this.controller.resume();
  }

  /** Abandons the body and the upstream request. */
  destroy(): void {
    if (!this.ended) this.controller.abort(new Error('the upstream body was abandoned'));
  }

  /** The whole body; fails past `limit` bytes (the request is aborted then). */
  readAll(limit: number): Promise<Buffer> {
    return new Promise((resolve, reject) => this.consume(new Collector(this, limit, resolve, reject)));
  }

  /** @internal from the dispatch handler */
  push(chunk: Buffer): void {
    if (this.consumer) {
      this.consumer.data(chunk);
      return;
    }
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes > HOLD_BEFORE_CONSUMER) this.controller.pause();
  }

  /** @internal from the dispatch handler */
  finish(error?: Error): void {
    if (this.ended) return;
    this.ended = error ? { error } : {};
    this.consumer?.end(error);
  }
}

/** Collects a whole body for `readAll` (a class for the reason `Exchange` gives). */
class Collector implements BodyConsumer {
  private readonly parts: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly body: UpstreamBody,
    private readonly limit: number,
    private readonly resolve: (whole: Buffer) => void,
    private readonly reject: (err: Error) => void,
  ) {}

  data(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limit) this.body.destroy();
    else this.parts.push(chunk);
  }

  end(error?: Error): void {
    const { parts, size } = this;
    if (size > this.limit) this.reject(new BodyTooLarge(this.limit));
    else if (error) this.reject(error);
    else this.resolve(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size));
  }
}

/**
 * One request through undici's dispatch API: resolves at the final response head, then feeds
 * the body. An abort of `signal` aborts the request wherever it is (connecting, waiting for
 * headers, streaming).
 */
function exchange(pool: Pool, options: Dispatcher.DispatchOptions, signal: AbortWatch): Promise<UpstreamResponse> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => pool.dispatch(options, new Exchange(signal, resolve, reject)));
}

/**
 * The dispatch handler of one `exchange`. A class, not closures: under tsx every closure bound
 * to a name is renamed with Object.defineProperty when it is created, a cost per call that
 * methods do not pay.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Controller | null = null;
  private body: UpstreamBody | null = null;
  private done = false;
  private readonly onAbort = this.abort.bind(this);

  constructor(
    private readonly signal: AbortWatch,
    private readonly resolve: (res: UpstreamResponse) => void,
    private readonly reject: (err: Error) => void,
  ) {
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(c: Controller): void {
    this.controller = c;
    if (this.signal.aborted) c.abort(this.signal.reason!);
  }

  onResponseStart(c: Controller, statusCode: number, headers: UpstreamResponse['headers']): void {
    // 1xx heads come before the real one.
    if (statusCode < 200) return;
    this.body = new UpstreamBody(c);
    this.resolve({ statusCode, headers, body: this.body });
  }

  onResponseData(_c: Controller, chunk: Buffer): void {
    this.body?.push(chunk);
  }

  onResponseEnd(): void {
    this.close();
  }

  onResponseError(_c: Controller, err: Error): void {
    this.close(err);
  }

  private abort(): void {
    this.controller?.abort(this.signal.reason!);
  }

  private close(error?: Error): void {
    if (this.done) return;
    this.done = true;
    this.signal.removeEventListener('abort', this.onAbort);
    if (this.body) this.body.finish(error);
    else this.reject(error ?? new Error('the upstream closed before answering'));
  }
}

/** A channel's request paths and headers (flat name, value lists, as undici takes them; never changed once built). */
interface ChannelRequest {
  paths: Readonly<Record<Protocol, string>>;
  headers: string[];
  streamHeaders: string[];
}

function channelRequest(channel: Channel): ChannelRequest {
  const headers = (accept: string) => [
    'content-type',
    'application/json',
    'accept',
    accept,
    'user-agent',
    'radar-relay',
    ...(channel.apiKey ? ['authorization', `Bearer ${channel.apiKey}`] : []),
  ];
  return {
    paths: Object.fromEntries(
      Object.entries(UPSTREAM_PATH).map(([protocol, path]) => [protocol, channel.basePath + path]),
    ) as Record<Protocol, string>,
    headers: headers('application/json'),
    streamHeaders: headers('text/event-stream'),
  };
}

/**
 * One keep-alive connection pool per channel. Pools are created on first use and live
 * until `close()`, so consecutive calls reuse warm connections instead of paying a TCP
 * (and TLS) handshake each.
 */
export class UpstreamPools {
  private readonly pools = new Map<string, Pool>();
  /** What every call to a channel sends alike, built once per channel object rather than per call. */
  private readonly fixed = new WeakMap<Channel, ChannelRequest>();

  private pool(channel: Channel): Pool {
    const key = `${channel.id} ${channel.origin}`;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new Pool(channel.origin, {
        // A channel that does not answer the TCP handshake fails over quickly.
        connectTimeout: 10_000,
        // Non-streamed reasoning calls may think for minutes before the first header.
        headersTimeout: 600_000,
        // Between two chunks of a body; a stream silent this long is dead.
        bodyTimeout: 300_000,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
      });
      this.pools.set(key, pool);
    }
    return pool;
  }

  /** Sends one call; resolves at the response head, with the body still to consume. */
  request(
    channel: Channel,
    protocol: Protocol,
    body: string | Buffer,
    stream: boolean,
    signal: AbortWatch,
  ): Promise<UpstreamResponse> {
    let fixed = this.fixed.get(channel);
    if (!fixed) this.fixed.set(channel, (fixed = channelRequest(channel)));
    return exchange(
      this.pool(channel),
      { method: 'POST', path: fixed.paths[protocol], headers: stream ? fixed.streamHeaders : fixed.headers, body },
      signal,
    );
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    // destroy, not close: streams still open at shutdown have already outlived the grace period.
    await Promise.allSettled(pools.map((p) => p.destroy()));
  }
}
