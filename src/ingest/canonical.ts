import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted (by UTF-16 code units) at every depth, no whitespace,
 * absent and `undefined` members left out. Applied to validated records, whose defaults are
 * filled in and timestamps normalized to UTC, so `revision` omitted and `revision: 1` — or
 * one instant written in two zones — give the same text and the same digest.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return '[' + value.map(canonicalJson).join(',') + ']';
  const obj = value as Record<string, unknown>;
  let out = '';
  for (const key of Object.keys(obj).sort()) {
    const v = obj[key];
    if (v === undefined) continue;
    out += (out ? ',' : '') + JSON.stringify(key) + ':' + canonicalJson(v);
  }
  return '{' + out + '}';
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** How digests are shown to clients: `sha256:<64 hex digits>`. */
export function formatDigest(digest: Buffer): string {
  return `sha256:${digest.toString('hex')}`;
}

export const DIGEST_BYTES = 32;

/**
 * The canonical form of a batch's records: the JSON array stored as its payload, the batch
 * digest (SHA-256 of that array's text), and each record's digest (SHA-256 of its canonical
 * JSON), concatenated in order so the worker need not canonicalize again.
 *
 * `sortedKeys` lists every key the records can hold, sorted: JSON.stringify with it as the
 * replacer writes each object's keys in that order at every depth, which is canonicalJson's
 * output at native speed (validated records hold no other keys; a test holds the two equal).
 */
export function canonicalBatch(records: readonly unknown[], sortedKeys: readonly string[]): { payload: string; digest: Buffer; recordDigests: Buffer } {
  const texts = records.map((r) => JSON.stringify(r, sortedKeys as string[]));
  const payload = '[' + texts.join(',') + ']';
  return { payload, digest: sha256(payload), recordDigests: Buffer.concat(texts.map(sha256)) };
}

/** The i-th record digest of `canonicalBatch().recordDigests`. */
export function recordDigestAt(recordDigests: Buffer, i: number): Buffer {
  return recordDigests.subarray(i * DIGEST_BYTES, (i + 1) * DIGEST_BYTES);
}
