import { useMemo, type FormEvent } from 'react';
import { useLocation, useSearch } from 'wouter';
import type {
  AnalyticsAnswer,
  Coverage,
  Finance,
  Freshness,
  Funnel,
  Money,
  Overview,
  Retention,
  SourceRow,
  Timeseries,
} from '../api/types.ts';
import { ErrorNote, Field, Loading } from '../ui/bits.tsx';
import { count, dateTime, moneyList, percent, time } from '../ui/format.ts';
import { TimeZoneField } from '../ui/TimeZoneField.tsx';
import { TimeChart, type ChartSeries } from '../ui/TimeChart.tsx';
import { useLoad } from '../ui/use-load.ts';
import AiAssistants from './AiAssistants.tsx';
import UnitEconomics from './UnitEconomics.tsx';
import { utcToZoned, zonedToUtc } from '../ui/zones.ts';
import { takeEarly } from '../ui/early.ts';
import {
  PRESETS,
  readState,
  viewRequest,
  windowOf,
  type Interval,
  type Preset,
  type ViewName,
  type ViewState,
} from './analytics-view.ts';

function Controls({ state, onChange }: { state: ViewState; onChange: (s: Partial<ViewState>) => void }) {
  const applyCustom = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    onChange({ preset: 'custom', from: String(f.get('from')), to: String(f.get('to')) });
  };
  const w = windowOf(state);
  return (
    <div className="card controls">
      <div className="filters">
        <Field label="Range">
          {(id) => (
            <select
              id={id}
              value={state.preset}
              onChange={(e) => {
                const preset = e.target.value as Preset;
                // Opening "custom" starts from the window shown, so there is something to edit.
                if (preset === 'custom' && !state.from) {
                  const asInstant = (v: string) => (v.length === 10 ? zonedToUtc(`${v}T00:00`, state.tz) : v);
                  onChange({
                    preset,
                    from: utcToZoned(asInstant(w.from), state.tz),
                    to: utcToZoned(asInstant(w.to), state.tz),
                  });
                } else onChange({ preset });
              }}
            >
              {PRESETS.map(([p, label]) => (
                <option key={p} value={p}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <TimeZoneField tz={state.tz} onChange={(tz) => onChange({ tz })} />
        <Field label="Chart by">
          {(id) => (
            <select id={id} value={state.interval} onChange={(e) => onChange({ interval: e.target.value as Interval })}>
              <option value="day">Day</option>
              <option value="week">Week</option>
              <option value="month">Month</option>
            </select>
          )}
        </Field>
      </div>
      {state.preset === 'custom' && (
        <form className="filters" onSubmit={applyCustom} key={`${state.from}/${state.to}/${state.tz}`}>
          <Field label={`From (${state.tz})`}>
            {(id) => <input id={id} name="from" type="datetime-local" step={900} defaultValue={state.from} required />}
          </Field>
          <Field label={`To, exclusive (${state.tz})`}>
            {(id) => <input id={id} name="to" type="datetime-local" step={900} defaultValue={state.to} required />}
          </Field>
          <button type="submit">Apply</button>
        </form>
      )}
    </div>
  );
}

function FreshnessLine({ f, c, tz }: { f: Freshness; c: Coverage; tz: string }) {
  return (
    <p className="freshness" data-testid="freshness">
      As of <strong>{f.as_of ? time(f.as_of, tz) : '—'}</strong>, {f.pending_hours}{' '}
      {f.pending_hours === 1 ? 'hour' : 'hours'} pending
      {f.lag_seconds > 0 && <> ({f.lag_seconds} s behind)</>} · last received {dateTime(f.last_received_at, tz)} ·
      window {dateTime(c.window.from, tz)} – {dateTime(c.window.to, tz)} ({c.window.days} days, {c.window.tz})
    </p>
  );
}

function Figure({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="figure" data-testid={testId}>
      <span className="figure-label">{label}</span>
      <span className="figure-value">{value}</span>
    </div>
  );
}

function OverviewFigures({ o }: { o: Overview }) {
  return (
    <section aria-labelledby="overview-title">
      <h2 id="overview-title">Overview</h2>
      <div className="figures">
        <Figure label="Visits" value={count(o.visits)} testId="fig-visits" />
        <Figure label="Visitors" value={count(o.visitors)} />
        <Figure label="Registrations" value={count(o.registrations)} testId="fig-registrations" />
        <Figure label="Activations" value={count(o.activations)} />
        <Figure label="Active users" value={count(o.active_users)} />
        <Figure label="Paid orders" value={count(o.paid_orders)} testId="fig-paid" />
        <Figure label="Receipts" value={moneyList(o.receipts)} testId="fig-receipts" />
        <Figure label="Net revenue" value={moneyList(o.net_revenue)} />
        <Figure label="MRR" value={moneyList(o.mrr)} />
        <Figure label="Uptime" value={percent(o.uptime.ratio)} />
      </div>
    </section>
  );
}

function CoverageTable({ c }: { c: Coverage }) {
  const families = Object.entries(c.families);
  return (
    <details className="card coverage" open>
      <summary>Coverage: days observed and where figures come from</summary>
      <div className="two-col">
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption>Records per family in the window</caption>
            <thead>
              <tr>
                <th scope="col">Family</th>
                <th scope="col" className="num">
                  Records
                </th>
                <th scope="col" className="num">
                  Days with data
                </th>
              </tr>
            </thead>
            <tbody>
              {families.map(([name, f]) => (
                <tr key={name} className={f.records === 0 ? 'muted' : undefined}>
                  <th scope="row">{name}</th>
                  <td className="num">{count(f.records)}</td>
                  <td className="num">
                    {f.days_with_data} of {f.days_in_window}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption>Metric sources (raw records vs. summaries)</caption>
            <thead>
              <tr>
                <th scope="col">Metric</th>
                <th scope="col">Source</th>
                <th scope="col" className="num">
                  Raw days
                </th>
                <th scope="col" className="num">
                  Summary days
                </th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(c.metrics).map(([name, m]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td>{m.source}</td>
                  <td className="num">{m.raw_days}</td>
                  <td className="num">{m.summary_days}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="small muted">
            Summaries used: {c.summaries.used}, unused: {c.summaries.unused}
          </p>
        </div>
      </div>
    </details>
  );
}

const COLORS = ['#1d4ed8', '#b45309', '#047857', '#7e22ce'];

function SeriesChart({ t, tz }: { t: Timeseries; tz: string }) {
  const x = useMemo(() => t.buckets.map((b) => Date.parse(b.start) / 1000), [t]);
  const series = useMemo<ChartSeries[]>(
    () =>
      (['visits', 'registrations', 'activations', 'paid_orders'] as const).map((k, i) => ({
        label: k.replace('_', ' '),
        color: COLORS[i]!,
        values: t.buckets.map((b) => (b.observed ? b[k] : null)),
      })),
    [t],
  );
  const unobserved = t.buckets.filter((b) => !b.observed).length;
  return (
    <section aria-labelledby="series-title">
      <h2 id="series-title">Per {t.interval}</h2>
      <TimeChart
        x={x}
        series={series}
        tz={tz}
        title={`Visits, registrations, activations and paid orders per ${t.interval}`}
      />
      {unobserved > 0 && (
        <p className="small muted">
          {unobserved} of {t.buckets.length} periods have no observed data (gaps in the lines).
        </p>
      )}
      <details>
        <summary>Table of the chart</summary>
        <div className="table-wrap" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Period</th>
                <th scope="col" className="num">
                  Visits
                </th>
                <th scope="col" className="num">
                  Registrations
                </th>
                <th scope="col" className="num">
                  Activations
                </th>
                <th scope="col" className="num">
                  Paid orders
                </th>
                <th scope="col">Net revenue</th>
              </tr>
            </thead>
            <tbody>
              {t.buckets.map((b) => (
                <tr key={b.start}>
                  <th scope="row">
                    {b.label}
                    {b.observed ? '' : ' (no data)'}
                  </th>
                  <td className="num">{b.visits}</td>
                  <td className="num">{b.registrations}</td>
                  <td className="num">{b.activations}</td>
                  <td className="num">{b.paid_orders}</td>
                  <td>{moneyList(b.net_revenue)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}

function SourceTable<R extends SourceRow>({
  rows,
  caption,
  name,
}: {
  rows: R[];
  caption: string;
  name: (r: R) => string;
}) {
  const roas = (r: Record<string, number | null>) =>
    Object.entries(r)
      .map(([c, v]) => `${c} ${v === null ? '—' : v.toFixed(2)}`)
      .join(' · ') || '—';
  return (
    <div className="table-wrap" tabIndex={0}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{caption.startsWith('Campaign') ? 'Campaign' : 'Channel'}</th>
            <th scope="col" className="num">
              Visits
            </th>
            <th scope="col" className="num">
              Registrations
            </th>
            <th scope="col" className="num">
              Paid
            </th>
            <th scope="col">Revenue</th>
            <th scope="col">Spend</th>
            <th scope="col">CAC</th>
            <th scope="col">ROAS</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={name(r)}>
              <th scope="row">{name(r)}</th>
              <td className="num">{count(r.visits)}</td>
              <td className="num">{count(r.registrations)}</td>
              <td className="num">{count(r.paid_orders)}</td>
              <td>{moneyList(r.revenue)}</td>
              <td>{moneyList(r.spend)}</td>
              <td>{moneyList(r.cac)}</td>
              <td>{roas(r.roas)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && <p className="muted">None in this window.</p>}
    </div>
  );
}

function FinanceTable({ f, currencies }: { f: Finance; currencies: string[] }) {
  const rows: [string, Money][] = [
    ['Receipts', f.receipts],
    ['Refunds', f.refunds],
    ['Net revenue', f.net_revenue],
    ['Costs', f.costs.total],
    ['Campaign expenses', f.expenses.total],
    ['Margin', f.margin],
    ['MRR', f.mrr],
    ['ARR', f.arr],
  ];
  return (
    <section aria-labelledby="finance-title">
      <h2 id="finance-title">Finance</h2>
      <p className="small muted">Each currency on its own; amounts are never converted or summed across currencies.</p>
      <div className="table-wrap" tabIndex={0}>
        <table>
          <caption className="sr-only">Finance per currency</caption>
          <thead>
            <tr>
              <th scope="col">Figure</th>
              {currencies.map((c) => (
                <th key={c} scope="col" className="num">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, m]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {currencies.map((c) => (
                  <td key={c} className="num">
                    {m[c] === undefined ? '—' : moneyList({ [c]: m[c]! })}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {currencies.length === 0 && <p className="muted">No money in this window.</p>}
      <div className="figures">
        <Figure label="Active subscriptions" value={count(f.subscriptions.active)} />
        <Figure label="New subscriptions" value={count(f.subscriptions.new)} />
        <Figure label="Churned subscriptions" value={count(f.subscriptions.churned)} />
      </div>
    </section>
  );
}

const STEP_NAMES: Record<string, string> = {
  visit: 'Visited',
  registration_completed: 'Registered',
  activation_completed: 'Activated',
  order_paid: 'Paid',
};

function FunnelChart({ f }: { f: Funnel }) {
  const top = Math.max(1, f.steps[0]?.users ?? 1);
  return (
    <section aria-labelledby="funnel-title">
      <h2 id="funnel-title">Funnel</h2>
      <ol className="funnel">
        {f.steps.map((s) => (
          <li key={s.step}>
            <span className="funnel-label">{STEP_NAMES[s.step] ?? s.step}</span>
            <span className="funnel-bar" style={{ width: `${(s.users / top) * 100}%` }} />
            <span className="funnel-value">
              {count(s.users)} users
              {s.conversion_from_previous !== null && <> · {percent(s.conversion_from_previous)} of previous step</>}
            </span>
          </li>
        ))}
      </ol>
      <p>
        Overall conversion: <strong>{percent(f.overall_conversion)}</strong>
      </p>
    </section>
  );
}

function RetentionGrid({ r }: { r: Retention }) {
  const weeks = Math.max(0, ...r.cohorts.map((c) => c.weeks.length));
  return (
    <section aria-labelledby="retention-title">
      <h2 id="retention-title">Retention by weekly cohort</h2>
      {r.cohorts.length === 0 ? (
        <p className="muted">No registrations in this window.</p>
      ) : (
        <div className="table-wrap" tabIndex={0}>
          <table className="retention">
            <thead>
              <tr>
                <th scope="col">Cohort</th>
                <th scope="col" className="num">
                  Users
                </th>
                {Array.from({ length: weeks }, (_, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the week's number is the column
                  <th key={i} scope="col" className="num">
                    Week {i + 1}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {r.cohorts.map((c) => (
                <tr key={c.start}>
                  <th scope="row">{c.label}</th>
                  <td className="num">{count(c.users)}</td>
                  {Array.from({ length: weeks }, (_, i) => {
                    const w = c.weeks[i];
                    return (
                      <td
                        // biome-ignore lint/suspicious/noArrayIndexKey: the week's number is the column
                        key={i}
                        className="num cell"
                        style={w?.share ? { backgroundColor: `rgba(29, 78, 216, ${0.08 + w.share * 0.6})` } : undefined}
                      >
                        {w ? percent(w.share) : ''}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export default function Analytics({ siteId }: { siteId: string }) {
  const search = useSearch();
  const [path, navigate] = useLocation();
  const state = readState(search);
  const onChange = (changes: Partial<ViewState>) => {
    const s = { ...state, ...changes };
    const q = new URLSearchParams({ range: s.preset, tz: s.tz, interval: s.interval });
    if (s.preset === 'custom') {
      q.set('from', s.from);
      q.set('to', s.to);
    }
    navigate(`${path}?${q}`, { replace: true });
  };
  // Each view's request, or the one the entry bundle started for this very view (main.tsx).
  const load = <V extends ViewName>(view: V) => {
    const r = viewRequest(siteId, state, view);
    return [() => takeEarly<AnalyticsAnswer<V>>(r.key, r.load), r.key] as const;
  };
  const w = windowOf(state);
  const query = { from: w.from, to: w.to, tz: state.tz };
  const overview = useLoad(...load('overview'));
  const series = useLoad(...load('timeseries'));
  const acquisition = useLoad(...load('acquisition'));
  const finance = useLoad(...load('finance'));
  const funnel = useLoad(...load('funnel'));
  const retention = useLoad(...load('retention'));
  // Sections appear top-down: each once every section above it has its answer (or error).
  // An answer arriving above what is already on screen would push it down, a layout shift
  // (CLS); appearing below what is shown moves nothing. Reserving each section's final height
  // instead cannot work: tables and figures wrap differently with the data and the width.
  const order = [overview, series, acquisition, finance];
  const settledUpTo = order.findIndex((l) => !l.data && !l.error);
  const shown = (i: number) => settledUpTo === -1 || i <= settledUpTo;
  return (
    <div className="analytics">
      <Controls state={state} onChange={onChange} />
      <ErrorNote error={overview.error} />
      {overview.data ? (
        <>
          <FreshnessLine f={overview.data.freshness} c={overview.data.coverage} tz={state.tz} />
          <OverviewFigures o={overview.data.data} />
        </>
      ) : (
        !overview.error && <Loading what="overview" />
      )}
      {shown(1) && (
        <>
          <ErrorNote error={series.error} />
          {series.data ? <SeriesChart t={series.data.data} tz={state.tz} /> : !series.error && <Loading what="chart" />}
        </>
      )}
      {shown(2) && (
        <section aria-labelledby="acq-title">
          <h2 id="acq-title">Acquisition</h2>
          <ErrorNote error={acquisition.error} />
          {acquisition.data ? (
            <>
              <SourceTable
                rows={acquisition.data.data.channels}
                caption="Channels"
                name={(r) => r.channel || '(no channel)'}
              />
              <SourceTable
                rows={acquisition.data.data.campaigns}
                caption="Campaigns"
                name={(r) => r.name ?? r.campaign_id}
              />
              <AiAssistants siteId={siteId} query={query} />
            </>
          ) : (
            !acquisition.error && <Loading what="acquisition" />
          )}
        </section>
      )}
      {shown(3) && (
        <>
          <ErrorNote error={finance.error} />
          {finance.data ? (
            <FinanceTable f={finance.data.data} currencies={finance.data.currencies} />
          ) : (
            !finance.error && <Loading what="finance" />
          )}
        </>
      )}
      {shown(4) && (
        <>
          <UnitEconomics siteId={siteId} query={query} />
          <div className="two-col">
            <div>
              <ErrorNote error={funnel.error} />
              {funnel.data ? <FunnelChart f={funnel.data.data} /> : !funnel.error && <Loading what="funnel" />}
            </div>
            <div>
              <ErrorNote error={retention.error} />
              {retention.data ? (
                <RetentionGrid r={retention.data.data} />
              ) : (
                !retention.error && <Loading what="retention" />
              )}
            </div>
          </div>
          {overview.data && <CoverageTable c={overview.data.coverage} />}
        </>
      )}
    </div>
  );
}
