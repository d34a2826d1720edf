import { QUARTER } from './calendar.ts';
import type { Span } from './cover.ts';
import { quietSpans, type Queryable } from './repo.ts';
import { windowAt, type Window } from './window.ts';

/** The window a view answers for (`w`) and the one its rollup reads use (`reads`), fixed in its snapshot. */
export interface ViewWindows {
  w: Window;
  reads: Window;
}

/**
 * A view's windows, once its snapshot is taken (called in it, after its first query): a live
 * window ends now, then its ends are moved out where that changes nothing (readWindow).
 */
export async function viewWindows(t: Queryable, siteId: string, asked: Window): Promise<ViewWindows> {
  const w = windowAt(asked, Date.now());
  return { w, reads: await readWindow(t, siteId, w) };
}

/**
 * The window the rollup reads of a view use: `w` with an end that is not on a quarter hour moved
 * out to its quarter hour when the site holds nothing the rollups count between the two, as
 * seen in the view's snapshot. Then every figure over the wider window is the figure over `w`,
 * and that quarter hour is read from its rollup and what is pending for it (folded or not, it
 * costs what arrived) instead of from the raw records (cover.ts `tile`).
 *
 * Why: a dashboard asks up to now, so its window ends inside the current quarter hour, which is
 * exactly where a busy site's ingest lands; read raw, every view re-read the quarter's records
 * (millions under sustained ingest: 5–10 s per read with 32 readers). A record already stored
 * after `to` (a clock ahead, a future-dated record) keeps the raw read, which is exact.
 *
 * Only range reads take the moved ends: what is instant-based (subscription state at the
 * window's end, summaries by their period, the relay's calls, the answer's window) keeps `w`.
 */
export async function readWindow(t: Queryable, siteId: string, w: Window): Promise<Window> {
  const from = Math.floor(w.from / QUARTER) * QUARTER;
  const to = Math.ceil(w.to / QUARTER) * QUARTER;
  const gaps: Span[] = [];
  if (from < w.from) gaps.push({ from, to: w.from });
  if (w.to < to) gaps.push({ from: w.to, to });
  if (gaps.length === 0) return w;
  const quiet = await quietSpans(t, siteId, gaps);
  const start = from < w.from && quiet[0] ? from : w.from;
  const end = w.to < to && quiet.at(-1) ? to : w.to;
  if (start === w.from && end === w.to) return w;
  // Local days start on quarter hours (window.ts refuses zones whose days do not), so the moved
  // ends stay within the first and last day.
  const days = w.days.map((d, i) => ({
    ...d,
    from: i === 0 ? start : d.from,
    to: i === w.days.length - 1 ? end : d.to,
  }));
  return { ...w, from: start, to: end, days };
}
