import { STATUS_CODES } from 'node:http';
import type { HttpResponse } from 'uWebSockets.js';
import { Abort, type AbortWatch } from '../shared/abort.ts';
import type { RequestBody } from './body.ts';

function statusLine(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
}

type Chunk = string | Uint8Array;

/**
 * The one owner of a uWS response. uWS responses are invalid after abort and every write
 * after an await must be corked; this class hides both rules, and the drain handshake of
 * streaming, behind `send`, `beginStream`, `write` (or `push` and `drain`) and `end`.
 * What one corked call writes leaves in one socket write (more only past uWS's 16 KiB cork
 * buffer), so a stream costs about one socket write per `push`.
 */
export class Reply {
  aborted = false;
  /** True once the status line is out: the answer can no longer change. */
  started = false;
  finished = false;
  /** The status sent, for the access log; 0 until the answer starts. */
  status = 0;
  private readonly abortion = new Abort();
  private drained: (() => void) | null = null;
  /** Status and headers of a stream not yet on the wire (see beginStream). */
  private head: { status: number; headers: Readonly<Record<string, string>> } | null = null;

  constructor(private readonly res: HttpResponse) {
    res.onAborted(() => {
      this.aborted = true;
      this.abortion.abort();
      this.drained?.();
    });
  }

  /** Fires when the client goes away, so upstream work can be cancelled at once. */
  get signal(): AbortWatch {
    return this.abortion;
  }

  get open(): boolean {
    return !this.aborted && !this.finished;
  }

  /** Sends a whole answer. */
  send(status: number, headers: Readonly<Record<string, string>>, body: string | Buffer): void {
    if (!this.open) return;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      this.writeHeaders(headers);
      this.res.end(body);
    });
    this.status = status;
    this.started = this.finished = true;
  }

  /**
   * Sends a whole answer and closes the connection, for requests it must not outlive (a
   * refused body, shutdown). When the client is still sending `unread`, the answer goes out
   * at once and the rest is read and discarded (see `LINGER`) before the answer ends. uWS
   * cannot close after `end`, nor end a chunked answer with a close, so: the answer is
   * written chunked with `Connection: close`, ended once the body is all in (the client then
   * closes), and cut off when lingering gives up.
   */
  sendAndClose(
    status: number,
    headers: Readonly<Record<string, string>>,
    body: string | Buffer,
    unread: RequestBody | null,
  ): void {
    if (!this.open) return;
    this.status = status;
    this.started = true;
    if (!unread || unread.received) {
      this.res.cork(() => {
        this.res.writeStatus(statusLine(status));
        this.writeHeaders(headers);
        this.res.end(body, true);
      });
      this.finished = true;
      return;
    }
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      this.writeHeaders(headers);
      this.res.writeHeader('connection', 'close');
      this.res.write(body);
    });
    unread.linger((whole) => {
      if (whole) this.end();
      else this.abort();
    });
  }

  /**
   * Starts a streamed (chunked) answer: from here on the status is fixed. The head leaves
   * with the first chunk when one is written in this turn of the event loop (the usual case:
   * a provider's first bytes come with its headers), else on its own right after, so it
   * never waits for a slow first chunk and never costs a socket write of its own otherwise.
   */
  beginStream(status: number, headers: Readonly<Record<string, string>>): void {
    if (!this.open) return;
    this.head = { status, headers };
    setImmediate(() => {
      if (this.head && this.open) this.res.cork(() => this.writeHead());
    });
    this.status = status;
    this.started = true;
  }

  private writeHead(): void {
    const head = this.head;
    if (!head) return;
    this.head = null;
    this.res.writeStatus(statusLine(head.status));
    this.writeHeaders(head.headers);
  }

  /**
   * Writes one chunk (in one socket write, with the head if that is still pending). Returns
   * false when uWS had to keep part of it (the client reads slowly) or the client has gone:
   * then wait for `drain` before writing more.
   */
  push(chunk: Chunk): boolean {
    if (!this.open) return false;
    let ok = true;
    this.res.cork(() => {
      this.writeHead();
      ok = this.res.write(chunk);
    });
    return ok;
  }

  /**
   * After `push` returned false: resolves when the socket can take more, false when the
   * client has gone. Waiting for `onWritable` before the next write is what keeps memory flat
   * when the client reads slowly.
   */
  async drain(): Promise<boolean> {
    if (!this.open) return false;
    await new Promise<void>((resolve) => {
      this.drained = resolve;
      this.res.onWritable(() => {
        this.drained = null;
        resolve();
        return true;
      });
    });
    return this.open;
  }

  /**
   * Ends a streamed answer, after a last chunk when given (in the same socket write). When
   * nothing has left yet, `last` is the whole answer (a fast provider's stream often comes in
   * the read that brought its headers): it goes out with its length instead of chunked, one
   * write with no end chunk after it, and less for the client to parse.
   */
  end(last?: Chunk): void {
    if (!this.open) return;
    const whole = this.head !== null;
    this.res.cork(() => {
      this.writeHead();
      if (whole) {
        this.res.end(last ?? '');
        return;
      }
      if (last !== undefined) this.res.write(last);
      this.res.end();
    });
    this.finished = true;
  }

  private writeHeaders(headers: Readonly<Record<string, string>>): void {
    for (const name in headers) this.res.writeHeader(name, headers[name]!);
  }

  /** Drops the connection without a proper end, for streams that cannot finish. */
  abort(): void {
    if (!this.open) return;
    this.finished = true;
    this.res.close();
  }
}
