import { useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import { api, call } from '../api/client.ts';
import type { RelayUsage as Usage } from '../api/types.ts';
import { useSession } from '../session.tsx';
import { ErrorNote, Field, Loading } from '../ui/bits.tsx';
import { count } from '../ui/format.ts';
import { TimeZoneField } from '../ui/TimeZoneField.tsx';
import { TimeChart, type ChartSeries } from '../ui/TimeChart.tsx';
import { useLoad } from '../ui/use-load.ts';
import { addDays, todayIn, zonedToUtc } from '../ui/zones.ts';
import { isTimeZone } from '../../shared/time-zone.ts';

type Figures = Usage['totals'][number];

const RANGES = [
  ['7', 'Last 7 days'],
  ['30', 'Last 30 days'],
  ['90', 'Last 90 days'],
] as const;
const COLORS = ['#1d4ed8', '#b45309', '#047857', '#7e22ce', '#be123c'];

interface ViewState {
  days: string;
  tz: string;
  /** The admin's choice: every key, or only their own. */
  scope: 'mine' | 'all';
}

function readState(search: string): ViewState {
  const q = new URLSearchParams(search);
  const days = RANGES.some(([d]) => d === q.get('days')) ? q.get('days')! : '30';
  const zone = q.get('tz') ?? '';
  const tz = isTimeZone(zone) ? zone : Intl.DateTimeFormat().resolvedOptions().timeZone;
  return { days, tz, scope: q.get('scope') === 'all' ? 'all' : 'mine' };
}

/** Cost amounts per currency, each on its own (never summed across currencies). */
function costText(cost: Record<string, string>): string {
  const entries = Object.entries(cost).sort(([a], [b]) => a.localeCompare(b));
  return entries.length ? entries.map(([c, v]) => `${v} ${c}`).join(' · ') : '—';
}

const ms = (p: { p50: number; p95: number } | null) => (p ? `${p.p50} / ${p.p95}` : '—');

function Summary({ totals }: { totals: Figures[] }) {
  const sum = (f: (t: Figures) => number) => totals.reduce((n, t) => n + f(t), 0);
  const cost: Record<string, number> = {};
  for (const t of totals) for (const [c, v] of Object.entries(t.cost)) cost[c] = (cost[c] ?? 0) + Number(v);
  const items: [string, string][] = [
    ['Calls', count(sum((t) => t.calls))],
    ['Errors', count(sum((t) => t.errors))],
    ['Input tokens', count(sum((t) => t.tokens.input))],
    ['Cached tokens', count(sum((t) => t.tokens.cached))],
    ['Output tokens', count(sum((t) => t.tokens.output))],
    ['Reasoning tokens', count(sum((t) => t.tokens.reasoning))],
    // Display only: the exact per-day amounts are in the table below.
    ['Cost', costText(Object.fromEntries(Object.entries(cost).map(([c, v]) => [c, String(+v.toFixed(9))])))],
    ['Unpriced calls', count(sum((t) => t.unpricedCalls))],
  ];
  return (
    <div className="figures">
      {items.map(([label, value]) => (
        <div className="figure" key={label} data-testid={`usage-${label.toLowerCase().replace(/ /g, '-')}`}>
          <span className="figure-label">{label}</span>
          <span className="figure-value">{value}</span>
        </div>
      ))}
    </div>
  );
}

/** The window's days as chart x values, and one value per day (missing days: `absent`). */
function useDaily(u: Usage) {
  return useMemo(() => {
    const x = u.days.map((d) => Date.parse(zonedToUtc(`${d}T00:00`, u.window.tz)) / 1000);
    const byDay = new Map(u.totals.map((t) => [t.day, t]));
    const per = (f: (t: Figures) => number | null, absent: number | null) =>
      u.days.map((d) => {
        const t = byDay.get(d);
        return t ? f(t) : absent;
      });
    return { x, per };
  }, [u]);
}

function Charts({ u }: { u: Usage }) {
  const { x, per } = useDaily(u);
  const tz = u.window.tz;
  const currencies = useMemo(() => [...new Set(u.totals.flatMap((t) => Object.keys(t.cost)))].sort(), [u]);
  const charts = useMemo(() => {
    // Per chart: label, color and value of a day with calls; a day without calls has none of
    // them (0), but no latency either (a gap).
    const lines = (specs: [string, number, (t: Figures) => number | null][], absent: number | null) =>
      specs.map(
        ([label, color, f]): ChartSeries => ({
          label,
          color: COLORS[color % COLORS.length]!,
          values: per(f, absent),
        }),
      );
    return {
      calls: lines(
        [
          ['calls', 0, (t) => t.calls],
          ['errors', 4, (t) => t.errors],
          ['unpriced', 1, (t) => t.unpricedCalls],
        ],
        0,
      ),
      tokens: lines(
        [
          ['input', 0, (t) => t.tokens.input],
          ['cached', 2, (t) => t.tokens.cached],
          ['output', 1, (t) => t.tokens.output],
          ['reasoning', 3, (t) => t.tokens.reasoning],
        ],
        0,
      ),
      cost: lines(
        currencies.map((c, i) => [c, i, (t: Figures) => Number(t.cost[c] ?? 0)]),
        0,
      ),
      latency: lines(
        [
          ['first byte p50', 0, (t) => t.ttfbMs?.p50 ?? null],
          ['first byte p95', 3, (t) => t.ttfbMs?.p95 ?? null],
          ['duration p50', 2, (t) => t.durationMs.p50],
          ['duration p95', 1, (t) => t.durationMs.p95],
        ],
        null,
      ),
    };
  }, [per, currencies]);
  return (
    <div
      style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 420px), 1fr))', gap: '1rem' }}
    >
      <section aria-labelledby="chart-calls">
        <h2 id="chart-calls">Calls per day</h2>
        <TimeChart x={x} series={charts.calls} tz={tz} title="Calls, errors and unpriced calls per day" />
      </section>
      <section aria-labelledby="chart-tokens">
        <h2 id="chart-tokens">Tokens per day</h2>
        <TimeChart x={x} series={charts.tokens} tz={tz} title="Input, cached, output and reasoning tokens per day" />
      </section>
      <section aria-labelledby="chart-cost">
        <h2 id="chart-cost">Cost per day</h2>
        {currencies.length ? (
          <TimeChart x={x} series={charts.cost} tz={tz} title={`Cost per day in ${currencies.join(', ')}`} />
        ) : (
          <p className="muted">No priced call in this window.</p>
        )}
      </section>
      <section aria-labelledby="chart-latency">
        <h2 id="chart-latency">Latency per day (ms)</h2>
        <TimeChart
          x={x}
          series={charts.latency}
          tz={tz}
          title="Time to first byte and duration, p50 and p95, per day"
        />
      </section>
    </div>
  );
}

function Table({ u }: { u: Usage }) {
  return (
    <section aria-labelledby="usage-table-title">
      <h2 id="usage-table-title">Per day, key and model</h2>
      {u.rows.length === 0 ? (
        <p className="muted">No calls in this window.</p>
      ) : (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="sr-only">Usage per day, key and model</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Key</th>
                <th scope="col">Model</th>
                <th scope="col">Calls</th>
                <th scope="col">Errors</th>
                <th scope="col">Tokens in / cached / out / reasoning</th>
                <th scope="col">Cost</th>
                <th scope="col">Unpriced calls</th>
                <th scope="col">First byte p50 / p95 ms</th>
                <th scope="col">Duration p50 / p95 ms</th>
              </tr>
            </thead>
            <tbody>
              {[...u.rows].reverse().map((r) => (
                <tr key={`${r.day}/${r.keyId}/${r.model}`}>
                  <td>{r.day}</td>
                  <td>{r.keyName}</td>
                  <td>{r.model}</td>
                  <td>{count(r.calls)}</td>
                  <td>{count(r.errors)}</td>
                  <td>
                    {[r.tokens.input, r.tokens.cached, r.tokens.output, r.tokens.reasoning].map(count).join(' / ')}
                  </td>
                  <td>{costText(r.cost)}</td>
                  <td>{r.unpricedCalls ? count(r.unpricedCalls) : '—'}</td>
                  <td>{ms(r.ttfbMs)}</td>
                  <td>{ms(r.durationMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Usage and spend of the caller's relay keys (the admin may look at every key). */
export default function RelayUsage() {
  const { me } = useSession();
  const search = useSearch();
  const [, navigate] = useLocation();
  const state = readState(search);
  const change = (s: Partial<ViewState>) => {
    const next = { ...state, ...s };
    navigate(`/relay/usage?${new URLSearchParams({ days: next.days, tz: next.tz, scope: next.scope })}`);
  };
  const all = me?.admin && state.scope === 'all';
  const today = todayIn(state.tz);
  const query = { from: addDays(today, 1 - Number(state.days)), to: addDays(today, 1), tz: state.tz };
  const usage = useLoad(
    () =>
      call<Usage>(
        all
          ? api.GET('/api/v1/relay/usage', { params: { query } })
          : api.GET('/api/v1/me/relay-usage', { params: { query } }),
      ),
    `${all}/${query.from}/${query.to}/${query.tz}`,
  );
  return (
    <>
      <h1>Model usage</h1>
      <p className="muted">
        Calls through your relay keys, per day in the time zone you choose. Costs are at the price in force at each
        call; calls to models without a price are counted as unpriced, never as free.
      </p>
      <div className="card controls">
        <div className="filters">
          <Field label="Range">
            {(id) => (
              <select id={id} value={state.days} onChange={(e) => change({ days: e.target.value })}>
                {RANGES.map(([d, label]) => (
                  <option key={d} value={d}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <TimeZoneField tz={state.tz} onChange={(tz) => change({ tz })} />
          {me?.admin && (
            <Field label="Keys">
              {(id) => (
                <select
                  id={id}
                  value={state.scope}
                  onChange={(e) => change({ scope: e.target.value as ViewState['scope'] })}
                >
                  <option value="mine">My keys</option>
                  <option value="all">Every account's keys</option>
                </select>
              )}
            </Field>
          )}
        </div>
      </div>
      <ErrorNote error={usage.error} />
      {usage.loading && !usage.data && <Loading what="usage" />}
      {usage.data && (
        <>
          <Summary totals={usage.data.totals} />
          <Charts u={usage.data} />
          <Table u={usage.data} />
        </>
      )}
    </>
  );
}
