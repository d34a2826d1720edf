import type { Resource } from '../auth/scopes.ts';
import type { FieldError } from '../errors/http-error.ts';
import type { Receipt } from '../ingest/receipt.ts';
import { RETRYABLE_STATUSES, retryDelay, type BackoffOptions } from './retry.ts';

/** A batch as the client formed it: its id is fixed here, so every send of it is a replay. */
export interface FormedBatch {
  resource: Resource;
  batchId: string;
  /** Each record's JSON, as validated when it was added. */
  lines: string[];
}

/** The problem+json of a refused batch (CONTRACT §2), as far as the SDK reads it. */
export interface Problem {
  code: string;
  detail: string;
  errors: FieldError[];
}

/** How one batch ended. */
export type SendOutcome =
  /** Answered 200 (or a 202 whose final receipt was then read): stored, counts in the receipt. */
  | { kind: 'completed'; receipt: Receipt; retries: number }
  /** Answered 202 and durable, but its final receipt could not be read (no `ingest:receipt:read`). */
  | { kind: 'queued'; receipt: Receipt; retries: number }
  /** Judged and refused (400, 409, 422, or a receipt that ended rejected): sending it again would not help. */
  | { kind: 'rejected'; status: number; problem: Problem; retries: number }
  /** Not delivered: retries ran out, or an answer the SDK cannot act on (401, 403, 413, 500, …). */
  | { kind: 'failed'; status: number | null; problem: Problem; retries: number };

export interface SendOptions {
  baseUrl: string;
  siteId: string;
  key: string;
  backoff: BackoffOptions;
  /** Retries stop once this long has passed since the first attempt. */
  giveUpAfterMs: number;
  requestTimeoutMs: number;
  /** Aborts waiting between retries (shutdown with a deadline); the batch then fails visibly. */
  signal?: AbortSignal;
  onRetry?: () => void;
}

/**
 * Sends one batch until it has a final outcome: retried on network errors and "not now"
 * answers, with the same body and batch id each time.
 */
export async function sendBatch(o: SendOptions, batch: FormedBatch): Promise<SendOutcome> {
  const body = `{"schema_version":"${batch.resource}.v1","batch_id":${JSON.stringify(batch.batchId)},"records":[${batch.lines.join(',')}]}`;
  const url = `${o.baseUrl}/api/v1/sites/${o.siteId}/ingest/${batch.resource}`;
  const started = Date.now();
  let retries = 0;
  for (;;) {
    const answer = await request(o, url, { method: 'POST', body });
    if (answer.kind === 'answer') {
      const { status } = answer;
      if (status === 200) return { kind: 'completed', receipt: answer.json as Receipt, retries };
      if (status === 202) return finalReceipt(o, answer, retries, started);
      if (status === 400 || status === 409 || status === 422)
        return { kind: 'rejected', status, problem: problemOf(answer.json, status), retries };
      if (!RETRYABLE_STATUSES.has(status))
        return { kind: 'failed', status, problem: problemOf(answer.json, status), retries };
    }
    const reason = answer.kind === 'answer' ? problemOf(answer.json, answer.status) : answer.problem;
    if (!(await pause(o, retries, answer.kind === 'answer' ? answer.retryAfter : null, started))) {
      return {
        kind: 'failed',
        status: answer.kind === 'answer' ? answer.status : null,
        problem: gaveUp(reason),
        retries,
      };
    }
    retries++;
    o.onRetry?.();
  }
}

/** After a 202: reads the receipt at `Location` until the batch is no longer queued. */
async function finalReceipt(o: SendOptions, accepted: Answer, retries: number, started: number): Promise<SendOutcome> {
  const queued = accepted.json as Receipt;
  if (!accepted.location) return { kind: 'queued', receipt: queued, retries };
  const url = new URL(accepted.location, o.baseUrl).toString();
  for (let polls = 0; ; polls++) {
    if (!(await pause(o, Math.min(polls, 4), null, started))) return { kind: 'queued', receipt: queued, retries };
    const answer = await request(o, url, { method: 'GET' });
    if (answer.kind !== 'answer' || RETRYABLE_STATUSES.has(answer.status)) continue;
    if (answer.status !== 200) return { kind: 'queued', receipt: queued, retries };
    const receipt = answer.json as Receipt;
    if (receipt.status === 'completed') return { kind: 'completed', receipt, retries };
    if (receipt.status === 'rejected' && receipt.problem)
      return { kind: 'rejected', status: 422, problem: { ...receipt.problem }, retries };
  }
}

interface Answer {
  kind: 'answer';
  status: number;
  json: unknown;
  retryAfter: string | null;
  location: string | null;
}

async function request(
  o: SendOptions,
  url: string,
  init: { method: string; body?: string },
): Promise<Answer | { kind: 'network'; problem: Problem }> {
  try {
    const res = await fetch(url, {
      ...init,
      headers: {
        authorization: `Bearer ${o.key}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      signal: AbortSignal.timeout(o.requestTimeoutMs),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = { detail: text.slice(0, 200) };
    }
    return {
      kind: 'answer',
      status: res.status,
      json,
      retryAfter: res.headers.get('retry-after'),
      location: res.headers.get('location'),
    };
  } catch (err) {
    // fetch() says only "fetch failed"; the cause says what happened (ECONNREFUSED, a timeout).
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? (err as Error).message;
    return { kind: 'network', problem: { code: 'network_error', detail, errors: [] } };
  }
}

/** Waits before retry `attempt`; false when the retry window is over or the client is aborting. */
async function pause(o: SendOptions, attempt: number, retryAfter: string | null, started: number): Promise<boolean> {
  const ms = retryDelay(attempt, retryAfter, o.backoff);
  if (o.signal?.aborted || Date.now() + ms - started > o.giveUpAfterMs) return false;
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    o.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function problemOf(json: unknown, status: number): Problem {
  const p = (json ?? {}) as Partial<Problem> & { title?: string };
  return {
    code: typeof p.code === 'string' ? p.code : `http_${status}`,
    detail: typeof p.detail === 'string' ? p.detail : (p.title ?? `HTTP ${status}`),
    errors: Array.isArray(p.errors) ? p.errors : [],
  };
}

function gaveUp(last: Problem): Problem {
  return {
    code: 'retries_exhausted',
    detail: `gave up retrying; last error: ${last.code}: ${last.detail}`,
    errors: [],
  };
}
