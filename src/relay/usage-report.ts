import { z } from 'zod';
import { presentWindow, type Window } from '../analytics/window.ts';
import { windowParams } from '../analytics/schemas.ts';
import type { Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';
import { fromNanos } from './money.ts';

const report = sqlFile('relay/usage-report.sql');

/** The report window of the analytics views (from, to, tz), and which calls to count. */
export const UsageQuerySchema = z.strictObject({
  ...windowParams,
  /** Only this key's calls. */
  keyId: z.uuid().optional(),
  /** Only calls to this model. */
  model: z.string().min(1).max(200).optional(),
});
export type UsageQuery = z.output<typeof UsageQuerySchema>;

const Percentiles = z.object({ p50: z.number(), p95: z.number() });

const Figures = z.object({
  /** Local date `YYYY-MM-DD` in the window's tz. */
  day: z.string(),
  calls: z.number().int(),
  /** Answers of 400 and above, but 499 (the client went away), which is `cancelled`. */
  errors: z.number().int(),
  cancelled: z.number().int(),
  tokens: z.object({
    input: z.number().int(),
    cached: z.number().int(),
    output: z.number().int(),
    reasoning: z.number().int(),
  }),
  /** Decimal amounts per currency (`{"USD": "0.0123"}`); empty when no priced call cost anything. */
  cost: z.record(z.string(), z.string()),
  /** Calls to models without a price: never counted as 0 in `cost`. */
  unpricedCalls: z.number().int(),
  /** Milliseconds to the first byte sent (null when no call of the group sent one). */
  ttfbMs: Percentiles.nullable(),
  durationMs: Percentiles,
});

export const UsageAnswerSchema = z.object({
  window: z.object({ from: z.string(), to: z.string(), tz: z.string(), days: z.number().int() }),
  /** Every local day of the window, in order (days without calls included), for charts. */
  days: z.array(z.string()),
  /** Per day over every key and model counted (days without calls left out). */
  totals: z.array(Figures),
  /** Per day, key and model with calls. */
  rows: z.array(Figures.extend({ keyId: z.uuid(), keyName: z.string(), model: z.string() })),
});
export type UsageAnswer = z.output<typeof UsageAnswerSchema>;

interface ReportRow {
  day: string;
  key_id: string | null;
  key_name: string | null;
  model: string | null;
  calls: number;
  errors: number;
  cancelled: number;
  unpriced_calls: number;
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  ttfb_p50: number | null;
  ttfb_p95: number | null;
  duration_p50: number;
  duration_p95: number;
  cost: Record<string, string>;
}

const ms = (v: number) => Math.round(v * 10) / 10;

function figures(r: ReportRow): z.output<typeof Figures> {
  return {
    day: r.day,
    calls: r.calls,
    errors: r.errors,
    cancelled: r.cancelled,
    tokens: { input: r.input_tokens, cached: r.cached_tokens, output: r.output_tokens, reasoning: r.reasoning_tokens },
    cost: Object.fromEntries(Object.entries(r.cost).map(([currency, nanos]) => [currency, fromNanos(nanos)])),
    unpricedCalls: r.unpriced_calls,
    ttfbMs: r.ttfb_p50 === null || r.ttfb_p95 === null ? null : { p50: ms(r.ttfb_p50), p95: ms(r.ttfb_p95) },
    durationMs: { p50: ms(r.duration_p50), p95: ms(r.duration_p95) },
  };
}

/** Usage and spend of the keys of `accountId` (null: every key, for the admin) over a window. */
export async function usageReport(db: Db, w: Window, accountId: string | null, q: UsageQuery): Promise<UsageAnswer> {
  const rows = await db.any<ReportRow>(report, {
    from: new Date(w.from),
    to: new Date(w.to),
    tz: w.tz,
    accountId,
    keyId: q.keyId ?? null,
    model: q.model ?? null,
  });
  const answer: UsageAnswer = { window: presentWindow(w), days: w.days.map((d) => d.label), totals: [], rows: [] };
  for (const r of rows) {
    if (r.key_id === null) answer.totals.push(figures(r));
    else answer.rows.push({ ...figures(r), keyId: r.key_id, keyName: r.key_name ?? '', model: r.model ?? '' });
  }
  return answer;
}
