/** The bounds of one audit (CONTRACT §6). */
export const AUDIT_LIMITS = {
  /** Bytes read of each document; the rest is not downloaded. */
  maxBytes: 2 * 1024 * 1024,
  /** Redirects followed per document. */
  maxRedirects: 5,
  /** The whole audit, every document included. */
  totalMs: 10_000,
} as const;
