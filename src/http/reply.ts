import { STATUS_CODES } from 'node:http';
import type { HttpResponse } from 'uWebSockets.js';

function statusLine(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
}

/**
 * The one owner of a uWS response. uWS responses are invalid after abort and every write
 * after an await must be corked; this class hides both rules, and the drain handshake of
 * streaming, behind `send`, `beginStream`, `write` and `end`.
 */
export class Reply {
  aborted = false;
  /** True once the status line is out: the answer can no longer change. */
  started = false;
  finished = false;
  /** The status sent, for the access log; 0 until the answer starts. */
  status = 0;
  private readonly controller = new AbortController();
  private drained: (() => void) | null = null;

  constructor(private readonly res: HttpResponse) {
    res.onAborted(() => {
      this.aborted = true;
      this.controller.abort();
      this.drained?.();
    });
  }

  /** Fires when the client goes away, so upstream work can be cancelled at once. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get open(): boolean {
    return !this.aborted && !this.finished;
  }

  /** Sends a whole answer. `close` drops the connection, for bodies we refused to read. */
  send(status: number, headers: Readonly<Record<string, string>>, body: string | Buffer, close = false): void {
    if (!this.open) return;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      for (const [k, v] of Object.entries(headers)) this.res.writeHeader(k, v);
      this.res.end(body, close);
    });
    this.status = status;
    this.started = this.finished = true;
  }

  /** Writes status and headers of a streamed (chunked) answer. */
  beginStream(status: number, headers: Readonly<Record<string, string>>): void {
    if (!this.open) return;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      for (const [k, v] of Object.entries(headers)) this.res.writeHeader(k, v);
    });
    this.status = status;
    this.started = true;
  }

  /**
   * Writes one chunk and resolves when the socket can take more. uWS keeps a chunk it could
   * not send at once; waiting for `onWritable` before the next one is what keeps memory flat
   * when the client reads slowly. Resolves false when the client has gone.
   */
  async write(chunk: string | Uint8Array): Promise<boolean> {
    if (!this.open) return false;
    let ok = true;
    this.res.cork(() => {
      ok = this.res.write(chunk);
    });
    if (ok) return true;
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

  /** Ends a streamed answer. */
  end(): void {
    if (!this.open) return;
    this.res.cork(() => this.res.end());
    this.finished = true;
  }

  /** Drops the connection without a proper end, for streams that cannot finish. */
  abort(): void {
    if (!this.open) return;
    this.finished = true;
    this.res.close();
  }
}
