import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

export type Coding = 'br' | 'gzip';

/**
 * Answers shorter than this go out as they are: compressed they would still fill one TCP
 * segment, and brotli's or gzip's framing can make a tiny body larger.
 */
export const COMPRESS_MIN_BYTES = 1024;

const brotli = promisify(brotliCompress);
const deflate = promisify(gzip);
/**
 * Quality 4 for answers compressed per request: within a few percent of the best ratio on
 * JSON at a fraction of the time of quality 11, which the build spends on the console's
 * static files instead (src/console/build/vite.config.ts).
 */
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

/**
 * The coding to answer with for an `Accept-Encoding` header: the one the client weighs
 * highest, brotli on a tie (smaller), none when neither is offered or both are refused
 * (`q=0`). `*` stands for any coding the header does not name.
 */
export function pickEncoding(acceptEncoding: string | undefined): Coding | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    // A malformed weight counts as a refusal: NaN is not above 0.
    if (name) weights.set(name, q ? Number(q.slice(2)) : 1);
  }
  const weight = (c: Coding) => weights.get(c) ?? weights.get('*') ?? 0;
  const br = weight('br');
  const gz = weight('gzip');
  if (br > 0 && br >= gz) return 'br';
  return gz > 0 ? 'gzip' : null;
}

export interface Encoded {
  body: string | Buffer;
  /** `Vary` always (the answer depends on the header), `Content-Encoding` when compressed. */
  headers: Record<string, string>;
}

/**
 * A whole answer's body as the client asked for it. Compressed on libuv's thread pool, so a
 * large answer does not hold up the event loop. Never used for streams: a relay stream or a
 * download must leave chunk by chunk as it is produced.
 */
export async function encodeBody(body: string, acceptEncoding: string | undefined): Promise<Encoded> {
  const coding = Buffer.byteLength(body) >= COMPRESS_MIN_BYTES ? pickEncoding(acceptEncoding) : null;
  if (!coding) return { body, headers: { vary: 'accept-encoding' } };
  const packed = coding === 'br' ? await brotli(body, BROTLI_OPTIONS) : await deflate(body);
  return { body: packed, headers: { vary: 'accept-encoding', 'content-encoding': coding } };
}
