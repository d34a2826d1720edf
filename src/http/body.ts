import type { HttpResponse } from 'uWebSockets.js';
import { HttpError } from '../errors/http-error.ts';
import type { AbortWatch } from '../shared/abort.ts';

/** Largest body accepted on any route (5 MiB). */
export const BODY_LIMIT_BYTES = 5 * 1024 * 1024;

/**
 * How much of a body Radar reads and throws away after answering before it had all of it
 * (nginx's lingering close): closing on unread data makes the kernel reset the connection,
 * and a client still sending (node:http, so axios and most SDKs) then sees EPIPE or
 * ECONNRESET instead of the answer. Past either bound the connection is closed anyway.
 */
export const LINGER = { maxBytes: 64 * 1024 * 1024, idleMs: 5_000 };

/**
 * A request body, collected with a byte cap. Must be created synchronously inside the uWS
 * handler: chunks that arrive before `onData` is registered are lost. uWS reuses the
 * chunk's memory after the callback returns, so each chunk is copied.
 */
export class RequestBody {
  /** The whole body; rejects with 413 past the cap, 408 when it does not arrive in time. */
  readonly whole: Promise<Buffer>;
  /** True once the last byte has arrived: nothing of the request is left on the wire. */
  received = false;
  /** Bytes arrived so far, kept or not. */
  private bytes = 0;
  private lingering: { idle: NodeJS.Timeout; from: number; done: (whole: boolean) => void } | null = null;

  constructor(
    private readonly res: HttpResponse,
    private readonly opts: { limit: number; declaredLength: number | null; timeoutMs: number; signal: AbortWatch },
  ) {
    this.whole = new Promise((resolve, reject) => {
      if (opts.declaredLength !== null && opts.declaredLength > opts.limit) {
        // Don't collect a body we already know we'll refuse.
        reject(new HttpError('payload_too_large', { detail: `body exceeds ${opts.limit} bytes` }));
        this.listen(() => undefined);
        return;
      }
      const chunks: Buffer[] = [];
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(new HttpError('request_timeout', { detail: `body not received within ${opts.timeoutMs} ms` }));
      }, opts.timeoutMs);
      // A client that hangs up mid-body must not leave the request waiting for the timeout.
      opts.signal.addEventListener('abort', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new HttpError('request_timeout', { detail: 'client closed the connection' }));
      });
      this.listen((chunk, isLast) => {
        if (settled) return;
        if (this.bytes > opts.limit) {
          settled = true;
          clearTimeout(timer);
          reject(new HttpError('payload_too_large', { detail: `body exceeds ${opts.limit} bytes` }));
          return;
        }
        // Copied into Buffer's shared pool (small bodies), not into a fresh ArrayBuffer each.
        chunks.push(Buffer.from(new Uint8Array(chunk)));
        if (isLast) {
          settled = true;
          clearTimeout(timer);
          resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.bytes));
        }
      });
    });
  }

  private listen(collect: (chunk: ArrayBuffer, isLast: boolean) => void): void {
    this.res.onData((chunk, isLast) => {
      this.bytes += chunk.byteLength;
      if (isLast) this.received = true;
      if (this.lingering) this.discarded();
      else collect(chunk, isLast);
    });
  }

  /**
   * After an answer that did not wait for the body: reads and discards the rest, then calls
   * `done` once, with true when the last byte arrived (at once when nothing was left), false
   * past `LINGER.maxBytes`, after `LINGER.idleMs` without data, or when the client hangs up.
   */
  linger(done: (whole: boolean) => void): void {
    const left = this.opts.declaredLength === null ? 0 : this.opts.declaredLength - this.bytes;
    if (this.received || left > LINGER.maxBytes) {
      done(this.received);
      return;
    }
    const finish = (whole: boolean): void => {
      if (!this.lingering) return;
      clearTimeout(this.lingering.idle);
      this.lingering = null;
      done(whole);
    };
    // Unref'd: a connection left lingering must not keep a stopping process alive.
    const idle = setTimeout(() => finish(false), LINGER.idleMs).unref();
    this.lingering = { idle, from: this.bytes, done: finish };
    this.opts.signal.addEventListener('abort', () => finish(false));
  }

  private discarded(): void {
    const lingering = this.lingering!;
    if (this.received) lingering.done(true);
    else if (this.bytes - lingering.from > LINGER.maxBytes) lingering.done(false);
    else lingering.idle.refresh();
  }
}
