/**
 * True when an error means PostgreSQL or Redis could not be reached or went away, as
 * opposed to a bug: those become 503 with Retry-After, never 500.
 */
export function isConnectivityError(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    const { code, message, name } = e as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof code === 'string' && CONNECTIVITY_CODES.has(code)) return true;
    if (typeof message === 'string' && CONNECTIVITY_MESSAGES.some((m) => message.includes(m))) return true;
    if (name === 'MaxRetriesPerRequestError') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

const CONNECTIVITY_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  // PostgreSQL: cannot connect now, shutting down, too many connections, crash recovery.
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

const CONNECTIVITY_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  "Stream isn't writeable",
  'Connection is closed',
  'connect ECONNREFUSED',
  'Client has encountered a connection error',
];
