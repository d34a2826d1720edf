import { SseParser } from './sse.ts';
import { readUsage, usageIn, type Usage } from './usage.ts';

const KEY = Buffer.from('"usage"');
// Searched for without its opening quote, checked at each hit: a needle starting with a letter
// is found by a memchr over a rare byte, one starting with a quote (JSON is full of them) about
// ten times slower, and with `"usage":null` on every chunk this search runs once per frame.
const NEEDLE = KEY.subarray(1);
const FRAME_END = Buffer.from('\n\n');
const FRAME_END_CRLF = Buffer.from('\r\n\r\n');
const LF = 0x0a;
const CR = 0x0d;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = 0x7b;
const QUOTE = 0x22;

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x09 || b === LF || b === CR;
}

/** A chat request body that streams without asking for usage: Radar asks for it upstream, and strips it here. */
export function wantsUsageAdded(body: { stream?: unknown; stream_options?: unknown }): boolean {
  const options = body.stream_options as { include_usage?: unknown } | null | undefined;
  return body.stream === true && options?.include_usage !== true;
}

/** `body` asking for usage in its stream, every other field as the client sent it. */
export function withUsageAsked<T extends object>(body: T): T {
  const options = (body as { stream_options?: object | null }).stream_options;
  return { ...body, stream_options: { ...options, include_usage: true } };
}

/** Where the last complete SSE frame of `bytes` ends (0: none is complete). */
function lastFrameEnd(bytes: Buffer): number {
  const lf = bytes.lastIndexOf(FRAME_END);
  const lfEnd = lf === -1 ? 0 : lf + 2;
  // A CR LF CR LF ending later than the last LF LF lies after it: searched for only there, not
  // back through the whole read of a provider that never sends CR.
  const crlf = bytes.subarray(lfEnd).lastIndexOf(FRAME_END_CRLF);
  return crlf === -1 ? lfEnd : lfEnd + crlf + 4;
}

/** Where `"usage"` is found in `bytes` from `from` on, or -1. */
function keyAt(bytes: Buffer, from: number): number {
  for (let hit = bytes.indexOf(NEEDLE, from + 1); hit !== -1; hit = bytes.indexOf(NEEDLE, hit + 1))
    if (bytes[hit - 1] === QUOTE) return hit - 1;
  return -1;
}

/** True when `null` is at `at`. */
function isNull(bytes: Buffer, at: number): boolean {
  return bytes[at] === 0x6e && bytes[at + 1] === 0x75 && bytes[at + 2] === 0x6c && bytes[at + 3] === 0x6c;
}

/** True when a frame ends right before `at` (a blank line: LF LF or CR LF CR LF). */
function isFrameStart(bytes: Buffer, at: number): boolean {
  return bytes[at - 1] === LF && (bytes[at - 2] === LF || (bytes[at - 2] === CR && bytes[at - 3] === LF));
}

/** Start and end of the frame holding `at` within complete frames. */
function frameAround(bytes: Buffer, at: number): [number, number] {
  let start = at;
  while (start > 0 && !isFrameStart(bytes, start)) start--;
  let end = bytes.indexOf('\n\n', at);
  const crlf = bytes.indexOf('\r\n\r\n', at);
  end = end === -1 ? bytes.length : end + 2;
  if (crlf !== -1 && crlf + 4 < end) end = crlf + 4;
  return [start, end];
}

/**
 * A native chat stream whose client did not ask for usage, from a provider asked for it on
 * the client's behalf: reads the usage for metering and hands on exactly the frames the client
 * would have had without it. With `include_usage` OpenAI adds `"usage":null` to every chunk
 * (cut out, with its comma, byte for byte) and one last chunk with no choices and the usage
 * (left out whole); a provider that attaches usage to a chunk with choices instead gets that
 * chunk re-serialized without it. Bytes are handed on by whole frames: the tail of a frame cut
 * by a read waits for the read that completes it (a client acts on whole frames only).
 */
export class UsageStripper {
  /** The incomplete frame at the end of the previous read (a copy: reads share one buffer). */
  private pending: Buffer | null = null;

  constructor(private readonly usage: Usage) {}

  take(read: Buffer): Buffer | null {
    const bytes = this.pending ? Buffer.concat([this.pending, read]) : read;
    const end = lastFrameEnd(bytes);
    this.pending = end < bytes.length ? Buffer.from(bytes.subarray(end)) : null;
    return end === 0 ? null : this.strip(bytes.subarray(0, end));
  }

  /** What is left when the stream ends: a last frame without its blank line, if any. */
  finish(): Buffer | null {
    const rest = this.pending;
    this.pending = null;
    return rest && this.strip(rest);
  }

  private strip(bytes: Buffer): Buffer {
    let hit = keyAt(bytes, 0);
    if (hit === -1) return bytes;
    const out: Buffer[] = [];
    let from = 0;
    while (hit !== -1) {
      let v = hit + KEY.length;
      while (isSpace(bytes[v])) v++;
      if (bytes[v] !== COLON) {
        hit = keyAt(bytes, v);
        continue;
      }
      v++;
      while (isSpace(bytes[v])) v++;
      if (isNull(bytes, v)) {
        // `,"usage":null` (or `"usage":null,` when it comes first in its object).
        let cutStart = hit;
        let cutEnd = v + 4;
        let before = hit - 1;
        while (isSpace(bytes[before])) before--;
        if (bytes[before] === COMMA) cutStart = before;
        else {
          let after = cutEnd;
          while (isSpace(bytes[after])) after++;
          if (bytes[after] === COMMA) cutEnd = after + 1;
        }
        out.push(bytes.subarray(from, cutStart));
        from = cutEnd;
      } else if (bytes[v] === OPEN) {
        const [start, end] = frameAround(bytes, hit);
        out.push(bytes.subarray(from, start));
        from = end;
        const kept = this.withoutUsage(bytes.subarray(start, end));
        if (kept) out.push(kept);
      }
      hit = keyAt(bytes, Math.max(from, v));
    }
    out.push(bytes.subarray(from));
    return Buffer.concat(out);
  }

  /** The frame's usage read into the meter; the frame without it, or null when it carried nothing else. */
  private withoutUsage(frame: Buffer): Buffer | null {
    const data = new SseParser().push(Buffer.concat([frame, Buffer.from('\n\n')]))[0]?.data;
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data ?? '') as Record<string, unknown>;
    } catch {
      return frame;
    }
    readUsage(usageIn(chunk), this.usage);
    if (Array.isArray(chunk.choices) && chunk.choices.length === 0) return null;
    delete chunk.usage;
    return Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`);
  }
}
