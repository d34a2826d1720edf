import { useMemo } from 'react';
import { api, call } from '../../api/client.ts';
import type { GeoConfig, GeoMetrics, GeoOverview, GeoTraffic, GeoTrends, Ratio } from '../../api/types.ts';
import { ErrorNote, Field, Loading } from '../../ui/bits.tsx';
import { count, dateTime, percent, time } from '../../ui/format.ts';
import { TimeChart, type ChartSeries } from '../../ui/TimeChart.tsx';
import { useLoad } from '../../ui/use-load.ts';
import { useQuery } from '../../ui/use-query.ts';
import { addDays, todayIn, zonedToUtc } from '../../ui/zones.ts';
import { isTimeZone } from '../../../shared/time-zone.ts';
import { NotConfigured } from './NotConfigured.tsx';

const DEFAULT_TZ = 'Asia/Shanghai';
const RANGES = [
  ['7', 'Last 7 days'],
  ['30', 'Last 30 days'],
  ['90', 'Last 90 days'],
] as const;
const PERCENT: [number, number] = [0, 100];
const COLORS = ['#1d4ed8', '#b45309', '#047857', '#7e22ce', '#be123c'];

const ratioText = (r: Ratio) => (r.value === null ? '—' : `${percent(r.value)} (${r.numerator} of ${r.denominator})`);
const position = (p: number | null) => (p === null ? '—' : p.toFixed(1));
/** Local dates (YYYY-MM-DD in tz) as the chart's x: Unix seconds of each day's start. */
const dayStarts = (days: string[], tz: string) => days.map((d) => Date.parse(zonedToUtc(`${d}T00:00`, tz)) / 1000);

function Figures({ m }: { m: GeoMetrics }) {
  const figure = (label: string, value: string, detail: string, testId: string) => (
    <div className="figure" data-testid={testId}>
      <span className="figure-label">{label}</span>
      <span className="figure-value">{value}</span>
      <span className="small muted">{detail}</span>
    </div>
  );
  const r = (x: Ratio, what: string) =>
    x.value === null ? `no ${what}` : `${x.numerator} of ${x.denominator} ${what}`;
  return (
    <div className="figures">
      {figure(
        'Share of voice',
        percent(m.share_of_voice.value),
        r(m.share_of_voice, 'answers naming anyone'),
        'geo-sov',
      )}
      {figure('Mention rate', percent(m.mention_rate.value), r(m.mention_rate, 'answers'), 'geo-mention')}
      {figure('Citation rate', percent(m.citation_rate.value), r(m.citation_rate, 'answers citing'), 'geo-citation')}
      {figure('Average position', position(m.average_position), 'where the brand is named first = 1', 'geo-position')}
    </div>
  );
}

function Entities({ o }: { o: GeoOverview['data'] }) {
  const top = Math.max(1, ...o.entities.map((e) => e.answers));
  return (
    <div className="table-wrap" tabIndex={0}>
      <table>
        <caption>Brand and competitors in the answers</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Answers naming it</th>
            <th scope="col" className="num">
              Mention rate
            </th>
            <th scope="col" className="num">
              Average position
            </th>
          </tr>
        </thead>
        <tbody>
          {o.entities.map((e) => (
            <tr key={e.name}>
              <th scope="row" className={`mention-${e.kind}-text`}>
                {e.name} {e.kind === 'brand' && <span className="small muted">(your brand)</span>}
              </th>
              <td>
                <span className="bar-cell">
                  <span className={`bar bar-${e.kind}`} style={{ width: `${(e.answers / top) * 100}%` }} />
                  {count(e.answers)}
                </span>
              </td>
              <td className="num">{percent(e.mention_rate.value)}</td>
              <td className="num">{position(e.average_position)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function PerModel({ models }: { models: Record<string, GeoMetrics> }) {
  return (
    <div className="table-wrap" tabIndex={0}>
      <table>
        <caption>Per model</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col" className="num">
              Answers
            </th>
            <th scope="col">Share of voice</th>
            <th scope="col">Mention rate</th>
            <th scope="col">Citation rate</th>
            <th scope="col" className="num">
              Average position
            </th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(models).map(([model, m]) => (
            <tr key={model}>
              <th scope="row">{model}</th>
              <td className="num">{count(m.answers)}</td>
              <td>{ratioText(m.share_of_voice)}</td>
              <td>{ratioText(m.mention_rate)}</td>
              <td>{ratioText(m.citation_rate)}</td>
              <td className="num">{position(m.average_position)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function TrendsChart({ t, tz }: { t: GeoTrends; tz: string }) {
  const x = useMemo(
    () =>
      dayStarts(
        t.data.map((d) => d.day),
        tz,
      ),
    [t, tz],
  );
  const series = useMemo<ChartSeries[]>(
    () =>
      (
        [
          ['share_of_voice', 'Share of voice %'],
          ['mention_rate', 'Mention rate %'],
          ['citation_rate', 'Citation rate %'],
        ] as const
      ).map(([k, label], i) => ({
        label,
        color: COLORS[i]!,
        values: t.data.map((d) => (d.overall[k].value === null ? null : Math.round(d.overall[k].value! * 1000) / 10)),
      })),
    [t],
  );
  const days = t.data.filter((d) => d.overall.answers > 0).length;
  return (
    <section aria-labelledby="geo-trends-title">
      <h3 id="geo-trends-title">Trends per day</h3>
      <TimeChart
        x={x}
        series={series}
        tz={tz}
        title="Share of voice, mention rate and citation rate per day, in percent"
        yRange={PERCENT}
      />
      <p className="small muted">
        {days} of {t.data.length} days have answers; days without are gaps in the lines.
      </p>
    </section>
  );
}

function Traffic({ t, tz }: { t: GeoTraffic; tz: string }) {
  const x = useMemo(
    () =>
      dayStarts(
        t.data.days.map((d) => d.day),
        tz,
      ),
    [t, tz],
  );
  const series = useMemo<ChartSeries[]>(
    () =>
      t.data.assistants.map((a, i) => ({
        label: a.assistant,
        color: COLORS[i % COLORS.length]!,
        values: t.data.days.map((d) => d.assistants[a.assistant] ?? 0),
      })),
    [t],
  );
  return (
    <section aria-labelledby="geo-traffic-title">
      <h3 id="geo-traffic-title">Visits from AI assistants</h3>
      <p data-testid="geo-traffic-total">
        <strong>{count(t.data.visits)}</strong> visits in the window came from an AI assistant.
      </p>
      <div className="two-col">
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="sr-only">Visits per assistant</caption>
            <thead>
              <tr>
                <th scope="col">Assistant</th>
                <th scope="col" className="num">
                  Visits
                </th>
              </tr>
            </thead>
            <tbody>
              {t.data.assistants.map((a) => (
                <tr key={a.assistant}>
                  <th scope="row">{a.assistant}</th>
                  <td className="num">{count(a.visits)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {t.data.visits > 0 && <TimeChart x={x} series={series} tz={tz} title="Visits per AI assistant per day" />}
      </div>
    </section>
  );
}

export function GeoVisibility({ siteId, config }: { siteId: string; config: GeoConfig | null }) {
  const { q, set } = useQuery();
  const days = RANGES.some(([d]) => d === q.get('days')) ? Number(q.get('days')) : 30;
  const tz = q.get('tz') && isTimeZone(q.get('tz')!) ? q.get('tz')! : DEFAULT_TZ;
  const today = todayIn(tz);
  const query = { from: addDays(today, 1 - days), to: addDays(today, 1), tz };
  const params = { path: { siteId }, query };
  const key = `${siteId}/${query.from}/${tz}`;
  const overview = useLoad(() => call<GeoOverview>(api.GET('/api/v1/sites/{siteId}/geo/overview', { params })), key);
  const trends = useLoad(() => call<GeoTrends>(api.GET('/api/v1/sites/{siteId}/geo/trends', { params })), key);
  const traffic = useLoad(() => call<GeoTraffic>(api.GET('/api/v1/sites/{siteId}/geo/traffic', { params })), key);
  const o = overview.data;
  return (
    <>
      <div className="card controls filters">
        <Field label="Range">
          {(id) => (
            <select id={id} value={String(days)} onChange={(e) => set({ days: e.target.value })}>
              {RANGES.map(([d, label]) => (
                <option key={d} value={d}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Time zone" hint="Days are counted in this IANA zone">
          {(id, d) => (
            <input
              id={id}
              defaultValue={tz}
              aria-describedby={d}
              onChange={(e) =>
                isTimeZone(e.target.value) && e.target.value.includes('/') && set({ tz: e.target.value })
              }
            />
          )}
        </Field>
      </div>
      {!config && <NotConfigured siteId={siteId} />}
      <ErrorNote error={overview.error} />
      {o ? (
        <>
          <p className="freshness" data-testid="geo-freshness">
            As of <strong>{time(o.freshness.as_of, tz)}</strong> · last answer{' '}
            {dateTime(o.freshness.last_answer_at, tz)} · runs finished: {o.data.coverage.runs.succeeded} succeeded,{' '}
            {o.data.coverage.runs.partial} partly, {o.data.coverage.runs.failed} failed
            {o.data.coverage.runs.in_progress > 0 && `, ${o.data.coverage.runs.in_progress} in progress`} · models
            answered: {o.data.coverage.models.answered.length} of {o.data.coverage.models.configured.length} · window{' '}
            {o.window.days} days ({o.window.tz})
          </p>
          <Figures m={o.data.overall} />
          <div className="two-col">
            <Entities o={o.data} />
            <PerModel models={o.data.models} />
          </div>
        </>
      ) : (
        !overview.error && <Loading what="visibility" />
      )}
      <ErrorNote error={trends.error} />
      {trends.data ? <TrendsChart t={trends.data} tz={tz} /> : !trends.error && <Loading what="trends" />}
      <ErrorNote error={traffic.error} />
      {traffic.data ? <Traffic t={traffic.data} tz={tz} /> : !traffic.error && <Loading what="AI-referral traffic" />}
    </>
  );
}
