import { readUsage, type Usage } from './usage.ts';

const KEY = Buffer.from('"usage"');
// Searched for without its opening quote: a needle that starts with a letter is found by a
// memchr over a rare byte, while one starting with a quote, which JSON is full of, is ten
// times slower. The quote is checked at each hit.
const NEEDLE = KEY.subarray(1);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN = 0x7b;
const CLOSE = 0x7d;
// A usage object is a few hundred bytes; anything far bigger is not one worth buffering.
const MAX_OBJECT = 64 * 1024;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

/**
 * Reads the token counts of a native stream without decoding the stream. Each upstream read
 * is searched natively for the key `"usage"`; only an object that follows it is copied out and
 * parsed, so ordinary frames (and `"usage": null`, which OpenAI puts on every chunk when usage
 * is asked for) cost one memchr-speed scan. Inside JSON strings the key cannot appear (its
 * quotes would be escaped), so no frame parsing is needed to tell keys from text. A key or an
 * object cut by a read boundary is carried over in a few fields of state.
 */
export class UsageScanner {
  /** Bytes of the key matched at the very end of the previous read. */
  private partial = 0;
  /** After the key: 1 while expecting `:`, 2 while expecting `{`, 0 otherwise. */
  private expect: 0 | 1 | 2 = 0;
  /** The object being read, while inside one. */
  private parts: Buffer[] | null = null;
  private size = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly usage: Usage) {}

  push(chunk: Buffer): void {
    let i = this.partial > 0 ? this.restOfKey(chunk) : 0;
    while (i < chunk.length) {
      if (this.parts) i = this.object(chunk, i);
      else if (this.expect) i = this.afterKey(chunk, i);
      else {
        const hit = chunk.indexOf(NEEDLE, i);
        if (hit === -1) {
          this.partial = keyStartAtEnd(chunk, i);
          return;
        }
        i = hit + NEEDLE.length;
        // A quote ending the previous read was matched by restOfKey already.
        if (hit > 0 && chunk[hit - 1] === QUOTE) this.expect = 1;
      }
    }
  }

  /** Where scanning resumes in `chunk` after completing (or failing) a key begun in the previous read. */
  private restOfKey(chunk: Buffer): number {
    const want = KEY.length - this.partial;
    const n = Math.min(want, chunk.length);
    const matched = chunk.compare(KEY, this.partial, this.partial + n, 0, n) === 0;
    if (!matched) {
      this.partial = 0;
      return 0;
    }
    if (n < want) {
      this.partial += n;
      return chunk.length;
    }
    this.partial = 0;
    this.expect = 1;
    return n;
  }

  private afterKey(chunk: Buffer, i: number): number {
    while (i < chunk.length && isSpace(chunk[i]!)) i++;
    if (i === chunk.length) return i;
    const b = chunk[i]!;
    if (this.expect === 1 && b === COLON) {
      this.expect = 2;
      return i + 1;
    }
    if (this.expect === 2 && b === OPEN) {
      this.parts = [];
      this.size = 0;
      this.depth = 0;
      this.inString = false;
      this.escaped = false;
    }
    // `null`, or a string value "usage": nothing to read.
    this.expect = 0;
    return i;
  }

  private object(chunk: Buffer, start: number): number {
    for (let i = start; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) this.inString = false;
      } else if (b === QUOTE) this.inString = true;
      else if (b === OPEN) this.depth++;
      else if (b === CLOSE && --this.depth === 0) {
        this.parts!.push(chunk.subarray(start, i + 1));
        this.read();
        return i + 1;
      }
    }
    this.size += chunk.length - start;
    if (this.size > MAX_OBJECT) this.parts = null;
    // A copy: the caller may reuse the chunk's memory for its next read.
    else this.parts!.push(Buffer.from(chunk.subarray(start)));
    return chunk.length;
  }

  private read(): void {
    const parts = this.parts!;
    this.parts = null;
    try {
      readUsage(JSON.parse((parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString('utf8')), this.usage);
    } catch {
      // Not JSON after all: the stream is still forwarded, only its metering is lost.
    }
  }
}

/** How many leading bytes of the key `chunk` ends with (after `from`), for a key cut by the read boundary. */
function keyStartAtEnd(chunk: Buffer, from: number): number {
  const max = Math.min(KEY.length - 1, chunk.length - from);
  for (let k = max; k > 0; k--) {
    if (chunk[chunk.length - k] === QUOTE && chunk.compare(KEY, 0, k, chunk.length - k) === 0) return k;
  }
  return 0;
}
