import { z } from 'zod';

/**
 * Strings Radar stores. PostgreSQL text and jsonb cannot hold U+0000, and a lone UTF-16
 * surrogate (which JSON's `\uD800` escape can produce) is not Unicode text at all: jsonb
 * refuses it and the driver's UTF-8 encoding turns it into U+FFFD, so it would not read back
 * as sent. Every other code point — noncharacters, bidi controls, emoji, combining marks —
 * is stored and returned byte for byte.
 *
 * Lengths are counted in Unicode code points, which is what the spec's "characters" and the
 * docs' JSON Schema `minLength`/`maxLength` mean; an emoji is one character, not two.
 */

/** The first character no stored string may hold: U+0000 or an unpaired surrogate. */
const UNSTORABLE = /[\0\p{Cs}]/u;

/** Why `s` cannot be stored, or null when it can. */
export function unstorable(s: string): string | null {
  const bad = UNSTORABLE.exec(s);
  if (!bad) return null;
  const hex = bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  return bad[0] === '\0'
    ? `must not contain U+0000 (NUL), at character ${codePoints(s.slice(0, bad.index)) + 1}`
    : `must not contain an unpaired surrogate (U+${hex}), at character ${codePoints(s.slice(0, bad.index)) + 1}: it is not Unicode text`;
}

/** Length of `s` in Unicode code points (an unpaired surrogate counts as one). */
export function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Any string that surrounds its text with white space (as JavaScript's trim() sees it). */
const PADDED = /^\s|\s$/;

export interface TextOptions {
  /** Fewest characters (code points). @defaultValue 0 */
  min?: number;
  /** Most characters (code points). */
  max?: number;
  /**
   * Refuse leading and trailing white space, for names that are matched or shown as given;
   * refusing beats trimming because what is stored is then exactly what was sent.
   */
  unpadded?: boolean;
  /** A further check on a storable string of the right length: the message, or null when fine. */
  check?: (s: string) => string | null;
  /** JSON Schema `format` for the docs. */
  format?: string;
}

/**
 * A string Radar stores: storable (see above), `min` to `max` code points, and whatever
 * `check` adds. The first rule a value breaks is its one error, so a URL with a NUL is told
 * about the NUL, not also that it is no URL.
 */
export function text(opts: TextOptions = {}) {
  const { min = 0, max, unpadded = false, check, format } = opts;
  return z
    .string()
    .superRefine((s, ctx) => {
      const fail = (message: string) => ctx.addIssue({ code: 'custom', message, input: s });
      const why = unstorable(s);
      if (why) return fail(why);
      // Code points never outnumber UTF-16 units, so only a long string needs counting.
      const n = s.length > (max ?? Infinity) || s.length < 2 * min ? codePoints(s) : s.length;
      if (n < min) return fail(`must be at least ${min} characters`);
      if (max !== undefined && n > max)
        return fail(`must be at most ${max} characters (Unicode code points), not ${n}`);
      if (unpadded && PADDED.test(s)) return fail('must not begin or end with white space');
      const more = check?.(s);
      if (more) fail(more);
    })
    .meta({
      ...(min > 0 ? { minLength: min } : {}),
      ...(max !== undefined ? { maxLength: max } : {}),
      ...(format ? { format } : {}),
    });
}

/** An absolute http or https URL of at most `max` characters, stored as sent. */
export function httpUrl(opts: { max: number }) {
  return text({
    min: 1,
    max: opts.max,
    format: 'uri',
    check: (v) => {
      try {
        const u = new URL(v);
        if ((u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '') return null;
      } catch {
        // not a URL at all: the same answer
      }
      return 'must be an absolute http or https URL';
    },
  });
}

/**
 * Every string of a JSON value that cannot be stored, member names included, with the path
 * to it: for values no schema describes field by field, such as a stored payload.
 */
export function unstorableValues(value: unknown): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (typeof v === 'string') {
      const why = unstorable(v);
      if (why) out.push({ path, message: why });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => {
        walk(item, [...path, i]);
      });
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const why = unstorable(k);
        if (why) out.push({ path: [...path, k], message: `member name ${why}` });
        walk(item, [...path, k]);
      }
    }
  };
  walk(value, []);
  return out;
}
