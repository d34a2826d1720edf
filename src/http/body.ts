import type { HttpResponse } from 'uWebSockets.js';
import { HttpError } from '../errors/http-error.ts';
import type { AbortWatch } from '../shared/abort.ts';

/** Largest body accepted on any route (5 MiB). */
export const BODY_LIMIT_BYTES = 5 * 1024 * 1024;

/**
 * Collects a request body with a byte cap. Must be called synchronously inside the uWS
 * handler: chunks that arrive before `onData` is registered are lost. uWS reuses the
 * chunk's memory after the callback returns, so each chunk is copied.
 */
export function readBody(
  res: HttpResponse,
  opts: { limit: number; declaredLength: number | null; timeoutMs: number; signal: AbortWatch },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (opts.declaredLength !== null && opts.declaredLength > opts.limit) {
      // Don't read a body we already know we'll refuse; the caller closes the connection.
      reject(new HttpError('payload_too_large', { detail: `body exceeds ${opts.limit} bytes` }));
      res.onData(() => undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
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
    res.onData((chunk, isLast) => {
      if (settled) return;
      size += chunk.byteLength;
      if (size > opts.limit) {
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
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      }
    });
  });
}
