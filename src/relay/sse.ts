import { StringDecoder } from 'node:string_decoder';

export interface SseFrame {
  /** The `event:` field, when the frame has one (Responses streams name every event). */
  event: string | null;
  data: string;
}

/**
 * Incremental server-sent-events parser (WHATWG rules: LF, CR or CRLF line ends, `data:`
 * lines joined with LF, comments ignored). Chunks may split a frame, a line, or a UTF-8
 * character anywhere.
 */
export class SseParser {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  private event: string | null = null;
  private data: string[] = [];
  private skipLf = false;

  push(chunk: Uint8Array | string): SseFrame[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk as Buffer);
    // The LF of a CRLF whose CR ended the previous chunk.
    if (this.skipLf && text.charCodeAt(0) === 10) text = text.slice(1);
    if (text.length > 0) this.skipLf = false;
    const buffer = this.buffer + text;
    const frames: SseFrame[] = [];
    // A native regex scan: this runs over every byte a stream carries.
    const eol = /\r\n|\r|\n/g;
    let start = 0;
    for (let m = eol.exec(buffer); m; m = eol.exec(buffer)) {
      this.line(buffer.slice(start, m.index), frames);
      start = eol.lastIndex;
      if (m[0] === '\r' && start === buffer.length) this.skipLf = true;
    }
    this.buffer = buffer.slice(start);
    return frames;
  }

  private line(line: string, frames: SseFrame[]): void {
    if (line === '') {
      if (this.data.length > 0) frames.push({ event: this.event, data: this.data.join('\n') });
      this.event = null;
      this.data = [];
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' comment, e.g. keep-alive pings
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }
}

/** One SSE frame. JSON.stringify never emits a raw line break, so `data` stays one line. */
export function sseFrame(event: string | null, data: unknown): string {
  const json = JSON.stringify(data);
  return event ? `event: ${event}\ndata: ${json}\n\n` : `data: ${json}\n\n`;
}
