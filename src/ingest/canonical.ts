import { hash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted (by UTF-16 code units) at every depth, no whitespace,
 * absent and `undefined` members left out. Applied to validated records, whose defaults are
 * filled in and timestamps normalized to UTC, so `revision` omitted and `revision: 1` — or
 * one instant written in two zones — give the same text and the same digest.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  let out = '';
  for (const key of Object.keys(obj).sort()) {
    const v = obj[key];
    if (v === undefined) continue;
    out += `${(out ? ',' : '') + JSON.stringify(key)}:${canonicalJson(v)}`;
  }
  return `{${out}}`;
}

export function sha256(text: string): Buffer {
  // The one-shot form: no Hash object per call, which shows when hashing 500 records a batch.
  return hash('sha256', text, 'buffer');
}

/** How digests are shown to clients: `sha256:<64 hex digits>`. */
export function formatDigest(digest: Buffer): string {
  return `sha256:${digest.toString('hex')}`;
}

/**
 * The canonical form of a batch's validated records: the JSON array stored as its payload and
 * the batch digest (SHA-256 of that array's text). A record's own digest is SHA-256 of its
 * element of that array (computed where needed: apply.ts, upsert-records.sql).
 *
 * Plain JSON.stringify is canonical here because the record schemas declare their fields in
 * sorted order and zod writes its output in that order (schemas.ts, sortedStrictObject); a
 * test holds this equal to canonicalJson for every resource.
 */
export function canonicalBatch(records: readonly unknown[]): { payload: string; digest: Buffer } {
  const payload = JSON.stringify(records);
  return { payload, digest: sha256(payload) };
}
