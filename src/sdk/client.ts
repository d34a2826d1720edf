import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { z } from 'zod';
import type { Resource } from '../auth/scopes.ts';
import { MAX_RECORDS_PER_BATCH, RECORD_SCHEMAS, type RecordSchemas } from '../ingest/schemas.ts';
import { BufferFullError } from './buffer-full-error.ts';
import { RecordInvalidError } from './record-invalid-error.ts';
import { sendBatch, type FormedBatch, type Problem, type SendOutcome } from './send.ts';

export type Source = z.output<RecordSchemas['events']>['source'];

/** A record of `R` as the caller writes it: typed from the API's own schema; `source` defaults to the client's. */
export type RecordInput<R extends Resource> = Omit<z.input<RecordSchemas[R]>, 'source'> & { source?: Source };

export interface RadarClientOptions {
  /** Radar's origin, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  siteId: string;
  /** An ingest credential (`rdr_ingest_…`) with `ingest:<resource>:write` for what you add, and `ingest:receipt:read` to learn the outcome of batches answered 202. */
  key: string;
  /** `source` of records that name none (default `server_sdk`). */
  source?: Source;
  /** Records per batch, at most 500 (default 500). */
  batchSize?: number;
  /** A batch is sent before its JSON passes this size (default 4 MiB; the API takes 5 MiB). */
  maxBatchBytes?: number;
  /** Buffers are sent at least this often (default 1000 ms); 0 sends only full batches and on flush(). */
  flushIntervalMs?: number;
  /** Records held at once, buffered or in flight (default 10,000): what bounds the client's memory. */
  maxBufferedRecords?: number;
  /** What add() does when that bound is reached: `wait` for room (default) or `reject` with BufferFullError. */
  whenFull?: 'wait' | 'reject';
  /** Batches in flight at once (default 4). */
  concurrency?: number;
  retry?: { baseMs?: number; maxMs?: number; giveUpAfterMs?: number };
  requestTimeoutMs?: number;
  /**
   * The id of a batch, fixed when the batch is formed (default `sdk-<random>-<n>`). Derive it
   * from your data's identity to make a re-run of the same work a replay (the importer does).
   */
  batchId?: (resource: Resource, sequence: number) => string;
}

/** A record the server refused (400, 409, 422) or that could not be delivered, with why. */
export interface UndeliveredRecord {
  resource: Resource;
  batchId: string;
  /** The record as it was sent. */
  record: Record<string, unknown>;
  /** `rejected`: judged and refused, do not send it as is again; `failed`: not delivered (retries ran out, credential refused). */
  outcome: 'rejected' | 'failed';
  code: string;
  /** Every reason given for this record (field pointers relative to the record), or the batch's. */
  reasons: string[];
}

export interface ClientCounters {
  /** Records accepted by add(). */
  added: number;
  /** Batches formed (a batch resent without its refused records counts again). */
  batches: number;
  /** Records in batches the server acknowledged (200 or 202): durable from then on. */
  acknowledged: number;
  /** Of those, records stored as a new revision, and records the server already had. */
  applied: number;
  unchanged: number;
  /** Acknowledged records whose final receipt could not be read (answered 202, no receipt scope). */
  queued: number;
  rejected: number;
  failed: number;
  /** Sends repeated after a network error or a "not now" answer. */
  retries: number;
  /** Batches the server had already received (answered with `replay: true`). */
  replays: number;
  /** Held now: buffered, and in batches being sent. */
  buffered: number;
  inFlight: number;
}

interface Buffer {
  lines: string[];
  bytes: number;
}

/**
 * Buffers records per resource and sends them in batches (500 records, or sooner by size and
 * time), retrying what may be retried and reporting every record the server refuses. Memory is
 * bounded by `maxBufferedRecords`; nothing is dropped: add() waits or throws instead.
 *
 * Events: `rejected` and `failed` (an UndeliveredRecord each), `batch` ({batch, outcome}).
 * With no `rejected`/`failed` listener, undelivered records are reported with process.emitWarning.
 */
export class RadarClient extends EventEmitter {
  readonly #o: Required<Omit<RadarClientOptions, 'retry' | 'batchId'>> & {
    retry: { baseMs: number; maxMs: number; giveUpAfterMs: number };
    batchId: (resource: Resource, sequence: number) => string;
  };
  readonly #buffers = new Map<Resource, Buffer>();
  readonly #sequences = new Map<Resource, number>();
  readonly #queue: FormedBatch[] = [];
  #active = 0;
  #held = 0;
  #roomWaiters: (() => void)[] = [];
  #idleWaiters: (() => void)[] = [];
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  readonly #abort = new AbortController();
  readonly #counters = {
    added: 0,
    batches: 0,
    acknowledged: 0,
    applied: 0,
    unchanged: 0,
    queued: 0,
    rejected: 0,
    failed: 0,
    retries: 0,
    replays: 0,
  };

  constructor(options: RadarClientOptions) {
    super();
    const prefix = `sdk-${randomBytes(9)
      .toString('base64url')
      .replace(/[^a-zA-Z0-9]/g, 'x')}`;
    this.#o = {
      source: 'server_sdk',
      batchSize: MAX_RECORDS_PER_BATCH,
      maxBatchBytes: 4 * 1024 * 1024,
      flushIntervalMs: 1000,
      maxBufferedRecords: 10_000,
      whenFull: 'wait',
      concurrency: 4,
      requestTimeoutMs: 60_000,
      batchId: (_resource, n) => `${prefix}-${n}`,
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      retry: { baseMs: 250, maxMs: 30_000, giveUpAfterMs: 10 * 60_000, ...options.retry },
    };
    const { batchSize, maxBufferedRecords } = this.#o;
    if (!(batchSize >= 1 && batchSize <= MAX_RECORDS_PER_BATCH))
      throw new RangeError(`batchSize must be 1 to ${MAX_RECORDS_PER_BATCH}`);
    if (maxBufferedRecords < batchSize) throw new RangeError('maxBufferedRecords must be at least batchSize');
  }

  /**
   * Validates the record with the API's schema and buffers it. Resolves once it is buffered;
   * throws RecordInvalidError for a record the API would refuse, BufferFullError when full
   * under `whenFull: 'reject'`, and an Error after shutdown().
   */
  async add<R extends Resource>(resource: R, record: RecordInput<R>): Promise<void> {
    if (this.#closed) throw new Error('RadarClient is shut down');
    const parsed = RECORD_SCHEMAS[resource].safeParse({ ...record, source: record.source ?? this.#o.source });
    if (!parsed.success) throw new RecordInvalidError(resource, parsed.error);
    while (this.#held >= this.#o.maxBufferedRecords) {
      if (this.#o.whenFull === 'reject') throw new BufferFullError(this.#o.maxBufferedRecords);
      // Waiting must make progress. With a batch in flight, room comes when it is answered;
      // with none, only partial buffers of several resources are held: they go out now. Not
      // forming them otherwise keeps batches at fixed positions (the importer's batch ids).
      if (this.#active === 0 && this.#queue.length === 0) this.#formAll();
      await new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
      if (this.#closed) throw new Error('RadarClient is shut down');
    }
    const line = JSON.stringify(parsed.data);
    let buffer = this.#buffers.get(resource);
    if (buffer && buffer.bytes + line.length + 100 > this.#o.maxBatchBytes) this.#form(resource);
    buffer = this.#buffers.get(resource);
    if (!buffer) {
      buffer = { lines: [], bytes: 0 };
      this.#buffers.set(resource, buffer);
    }
    buffer.lines.push(line);
    buffer.bytes += line.length + 1;
    this.#held++;
    this.#counters.added++;
    if (buffer.lines.length >= this.#o.batchSize) this.#form(resource);
    else this.#startTimer();
  }

  /** An event (add('events', …)). */
  track(event: RecordInput<'events'>): Promise<void> {
    return this.add('events', event);
  }

  /** Sends everything buffered; resolves when every record so far is acknowledged, refused or failed (all reported). */
  async flush(): Promise<ClientCounters> {
    this.#formAll();
    if (this.#active > 0 || this.#queue.length > 0) await new Promise<void>((r) => this.#idleWaiters.push(r));
    return this.counters();
  }

  /**
   * Refuses new records, sends what is held and resolves like flush(). With `timeoutMs`, retries
   * stop at the deadline and what is not delivered by then is reported as failed.
   */
  async shutdown(opts: { timeoutMs?: number } = {}): Promise<ClientCounters> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    for (const wake of this.#roomWaiters.splice(0)) wake();
    const deadline = opts.timeoutMs === undefined ? null : setTimeout(() => this.#abort.abort(), opts.timeoutMs);
    try {
      return await this.flush();
    } finally {
      if (deadline) clearTimeout(deadline);
    }
  }

  counters(): ClientCounters {
    const inFlight = this.#held - [...this.#buffers.values()].reduce((n, b) => n + b.lines.length, 0);
    return { ...this.#counters, buffered: this.#held - inFlight, inFlight };
  }

  #startTimer(): void {
    if (this.#timer || this.#o.flushIntervalMs <= 0 || this.#closed) return;
    this.#timer = setInterval(() => this.#formAll(), this.#o.flushIntervalMs);
    // Buffered records do not keep a process alive; shutdown() is what sends the rest.
    this.#timer.unref();
  }

  #formAll(): void {
    for (const resource of [...this.#buffers.keys()]) this.#form(resource);
  }

  #form(resource: Resource): void {
    const buffer = this.#buffers.get(resource);
    if (!buffer?.lines.length) return;
    this.#buffers.delete(resource);
    const sequence = this.#sequences.get(resource) ?? 0;
    this.#sequences.set(resource, sequence + 1);
    this.#enqueue({ resource, batchId: this.#o.batchId(resource, sequence), lines: buffer.lines });
  }

  #enqueue(batch: FormedBatch): void {
    this.#counters.batches++;
    this.#queue.push(batch);
    this.#pump();
  }

  #pump(): void {
    while (this.#active < this.#o.concurrency) {
      const batch = this.#queue.shift();
      if (!batch) return;
      this.#active++;
      void this.#send(batch).finally(() => {
        this.#active--;
        this.#pump();
        if (this.#active === 0 && this.#queue.length === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
      });
    }
  }

  async #send(batch: FormedBatch): Promise<void> {
    let outcome: SendOutcome;
    try {
      outcome = await sendBatch(
        {
          ...this.#o,
          backoff: this.#o.retry,
          giveUpAfterMs: this.#o.retry.giveUpAfterMs,
          signal: this.#abort.signal,
          onRetry: () => this.#counters.retries++,
        },
        batch,
      );
    } catch (err) {
      outcome = {
        kind: 'failed',
        status: null,
        problem: { code: 'client_error', detail: String(err), errors: [] },
        retries: 0,
      };
    }
    this.emit('batch', { batch, outcome });
    const n = batch.lines.length;
    if (outcome.kind === 'completed' || outcome.kind === 'queued') {
      const { receipt } = outcome;
      this.#counters.acknowledged += n;
      if (receipt.replay) this.#counters.replays++;
      if (outcome.kind === 'queued') this.#counters.queued += n;
      else {
        this.#counters.applied += receipt.applied;
        this.#counters.unchanged += receipt.unchanged;
      }
      this.#release(n);
    } else if (outcome.kind === 'rejected') {
      this.#refused(batch, outcome.problem);
    } else {
      this.#report(
        batch,
        batch.lines.map((_, i) => i),
        'failed',
        outcome.problem,
      );
      this.#release(n);
    }
  }

  /**
   * A batch is refused whole, but the problem names the records at fault (`/records/<i>…`):
   * those are reported, and the others — never applied — go out again as a batch of their own,
   * with an id derived from the refused one, so a re-run forms the same batches.
   */
  #refused(batch: FormedBatch, problem: Problem): void {
    const faulty = new Set<number>();
    for (const e of problem.errors) {
      const m = /^\/records\/(\d+)(?:\/|$)/.exec(e.path);
      if (m && Number(m[1]) < batch.lines.length) faulty.add(Number(m[1]));
    }
    if (faulty.size === 0) {
      this.#report(
        batch,
        batch.lines.map((_, i) => i),
        'rejected',
        problem,
      );
      this.#release(batch.lines.length);
      return;
    }
    this.#report(batch, [...faulty], 'rejected', problem);
    this.#release(faulty.size);
    const rest = batch.lines.filter((_, i) => !faulty.has(i));
    if (rest.length) this.#enqueue({ ...batch, batchId: resentId(batch.batchId), lines: rest });
  }

  #report(batch: FormedBatch, indexes: number[], outcome: 'rejected' | 'failed', problem: Problem): void {
    this.#counters[outcome] += indexes.length;
    for (const i of indexes) {
      const own = problem.errors.filter((e) => e.path === `/records/${i}` || e.path.startsWith(`/records/${i}/`));
      const reasons = own.length
        ? own.map((e) => `${e.path.slice(`/records/${i}`.length) || '/'}: ${e.message}`)
        : [problem.detail];
      const record: UndeliveredRecord = {
        resource: batch.resource,
        batchId: batch.batchId,
        record: JSON.parse(batch.lines[i] ?? 'null'),
        outcome,
        code: problem.code,
        reasons,
      };
      if (this.listenerCount(outcome) > 0) this.emit(outcome, record);
      else
        process.emitWarning(
          `${batch.resource} record ${outcome} (${problem.code}): ${reasons.join('; ')}`,
          'RadarClient',
        );
    }
  }

  #release(n: number): void {
    this.#held -= n;
    for (const wake of this.#roomWaiters.splice(0)) wake();
  }
}

/** `b` → `b.r1` → `b.r2`: the id of a batch sent again without its refused records. */
function resentId(batchId: string): string {
  const m = /^(.*)\.r(\d+)$/.exec(batchId);
  return m ? `${m[1]}.r${Number(m[2]) + 1}` : `${batchId}.r1`;
}
