import { Pool, type Dispatcher } from 'undici';
import type { Channel } from './directory.ts';
import { UPSTREAM_PATH, type Protocol } from './protocol.ts';

/**
 * One keep-alive connection pool per channel. Pools are created on first use and live
 * until `close()`, so consecutive calls reuse warm connections instead of paying a TCP
 * (and TLS) handshake each.
 */
export class UpstreamPools {
  private readonly pools = new Map<string, Pool>();

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

  /**
   * Sends one call. Resolves at the response headers; the body stream pauses the upstream
   * socket when nobody reads it, which is what carries a slow client's backpressure up.
   */
  request(channel: Channel, protocol: Protocol, body: string | Buffer, stream: boolean, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
      'user-agent': 'radar-relay',
    };
    if (channel.apiKey) headers.authorization = `Bearer ${channel.apiKey}`;
    return this.pool(channel).request({ method: 'POST', path: channel.basePath + UPSTREAM_PATH[protocol], headers, body, signal });
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    // destroy, not close: streams still open at shutdown have already outlived the grace period.
    await Promise.allSettled(pools.map((p) => p.destroy()));
  }
}
