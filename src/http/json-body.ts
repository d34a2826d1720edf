import { TextDecoder } from 'node:util';
import { HttpError } from '../errors/http-error.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;

/**
 * Parses a request body as strict JSON (I-JSON, RFC 7493): UTF-8, and no object with the
 * same member twice. JSON.parse silently keeps the last of two equal keys, so a body could
 * mean one thing to us and another to a proxy or a client library; refusing it removes the
 * ambiguity.
 */
export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  // A missing Content-Type is tolerated (curl -d without -H still means JSON to us);
  // an explicit non-JSON type is a client bug worth naming.
  if (contentType !== undefined && !JSON_TYPE.test(contentType)) {
    throw new HttpError('unsupported_media_type', { detail: `Content-Type ${contentType} is not JSON` });
  }
  if (raw.length === 0)
    throw new HttpError('invalid_json', { detail: 'request body is empty; a JSON object is required' });
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new HttpError('invalid_json', { detail: 'request body is not valid UTF-8' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HttpError('invalid_json', { detail: `request body is not valid JSON: ${(err as Error).message}` });
  }
  // A member repeated within an object leaves the parsed value with fewer members than the
  // text has; counting both (no string copied, no set kept) costs a third of naming the
  // repeat, which is done only when the counts differ.
  const dup = memberCount(text) === parsedMemberCount(value) ? null : duplicateKey(text);
  if (dup !== null)
    throw new HttpError('invalid_json', {
      detail: `request body has the member ${JSON.stringify(dup)} twice in one object`,
    });
  return value;
}

/** Index of the quote closing the JSON string that opens at `start` (valid JSON). */
function stringEnd(text: string, start: number): number {
  let end = start + 1;
  for (;;) {
    end = text.indexOf('"', end);
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return end;
    end++;
  }
}

/** Members of every object of `text` (valid JSON): its colons outside strings. */
function memberCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) i = stringEnd(text, i);
    else if (c === 0x3a /* : */) n++;
  }
  return n;
}

/** Members of every object of a parsed JSON value; iterative, as JSON.parse takes any depth. */
function parsedMemberCount(value: unknown): number {
  let n = 0;
  const todo: unknown[] = [value];
  while (todo.length) {
    const v = todo.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const item of v) todo.push(item);
    } else {
      for (const key of Object.keys(v)) {
        n++;
        todo.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return n;
}

/**
 * The first member name that repeats within one object of `text`, which must already be
 * valid JSON. A single pass with a stack of key sets; strings are skipped with indexOf.
 */
export function duplicateKey(text: string): string | null {
  const stack: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      if (expectKey) {
        const rawKey = text.slice(i + 1, end);
        const key = rawKey.includes('\\') ? (JSON.parse(`"${rawKey}"`) as string) : rawKey;
        const keys = stack[stack.length - 1]!;
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      stack.push(new Set());
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      stack.push(null);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      expectKey = stack[stack.length - 1] instanceof Set;
    }
  }
  return null;
}
