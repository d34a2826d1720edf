import { DAY, HOUR } from './calendar.ts';
import type { RangeArrays } from './cover.ts';
import type { DayHours, DayPresence, PendingRow, SeriesRow, SourceRow } from './repo.ts';

/**
 * Views read the rollups plus what is still pending (migration 0017) in one snapshot: these add
 * the pending figures (repo.ts pendingCounts, per quarter hour) to what each read of the
 * rollups returned, as the rows the rollups will hold once folded. Every read adds up the rows
 * it gets, so the pending ones are appended.
 */

/** The groups of `r` whose ranges of whole buckets hold the quarter hour starting at `bucket`. */
function groupsOf(r: RangeArrays, bucket: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < r.groups.length; i++)
    if (Date.parse(r.los[i]!) <= bucket && bucket < Date.parse(r.his[i]!)) out.push(r.groups[i]!);
  return out;
}

/** Site totals (series.sql) over the ranges of `r`: `metrics` only, null for all. */
export function pendingSeries(
  pending: readonly PendingRow[],
  r: RangeArrays,
  metrics: readonly string[] | null,
): SeriesRow[] {
  return pending
    .filter((p) => !p.per_source && (!metrics || metrics.includes(p.metric)))
    .flatMap((p) =>
      groupsOf(r, p.bucket).map((grp) => ({
        grp,
        metric: p.metric,
        dim: p.dim,
        currency: p.currency,
        value: p.value,
        first_at: p.first_at,
        last_at: p.last_at,
      })),
    );
}

/**
 * Figures per acquisition source (sources.sql) over the ranges of `r`, pending changes added.
 * A source's visits or money can move to another source (a session's start, a user's first
 * touch): a figure that nets to zero is left out, as the fold removes its row (fold-zeros.sql).
 */
export function withPendingSources(
  stored: readonly SourceRow[],
  pending: readonly PendingRow[],
  r: RangeArrays,
): SourceRow[] {
  const sums = new Map<string, SourceRow>();
  const add = (row: SourceRow, times = 1) => {
    const k = [row.channel, row.campaign_id, row.metric, row.currency].join('\n');
    const sum = sums.get(k);
    if (sum) sum.value += row.value * times;
    else sums.set(k, { ...row, value: row.value * times });
  };
  for (const row of stored) add(row);
  for (const p of pending)
    if (p.per_source)
      add(
        { channel: p.channel, campaign_id: p.campaign_id, metric: p.metric, currency: p.currency, value: p.value },
        groupsOf(r, p.bucket).length,
      );
  return [...sums.values()].filter((row) => row.value !== 0);
}

const inDays = (p: PendingRow, from: number, to: number) => !p.per_source && p.bucket >= from && p.bucket < to;
const hourOf = (bucket: number) => Math.floor((bucket % DAY) / HOUR);

/** Site totals of `metrics` per UTC day with hourly values (day-hours.sql), days in [from, to). */
export function pendingDayHours(
  pending: readonly PendingRow[],
  from: number,
  to: number,
  metrics: readonly string[],
): DayHours[] {
  return pending
    .filter((p) => inDays(p, from, to) && metrics.includes(p.metric))
    .map((p) => {
      const hours = new Array<number>(24).fill(0);
      hours[hourOf(p.bucket)] = p.value;
      return [p.bucket - (p.bucket % DAY), p.metric, p.dim, p.currency, hours];
    });
}

/** Hours with data per metric (day-presence.sql), days in [from, to): a pending record is data. */
export function pendingPresence(pending: readonly PendingRow[], from: number, to: number): DayPresence[] {
  return pending
    .filter((p) => inDays(p, from, to) && p.value !== 0)
    .map((p) => ({ day: p.bucket - (p.bucket % DAY), metrics: [p.metric], hours: [1 << hourOf(p.bucket)] }));
}
