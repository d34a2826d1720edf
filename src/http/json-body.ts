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
  const dup = duplicateKey(text);
  if (dup !== null)
    throw new HttpError('invalid_json', {
      detail: `request body has the member ${JSON.stringify(dup)} twice in one object`,
    });
  return value;
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
      let end = i + 1;
      for (;;) {
        end = text.indexOf('"', end);
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
        end++;
      }
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
