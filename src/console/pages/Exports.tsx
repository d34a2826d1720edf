import { useEffect, useState, type FormEvent } from 'react';
import { api, type ApiError, call } from '../api/client.ts';
import { VIEW_NAMES } from '../../analytics/view-names.ts';
import type { operations } from '../api/schema.d.ts';
import { RESOURCES } from '../../auth/scopes.ts';
import { ErrorNote, Field, Loading } from '../ui/bits.tsx';
import { count, dateTime } from '../ui/format.ts';
import { useLoad } from '../ui/use-load.ts';

type ExportBody = operations['postApiV1SitesSiteIdExports']['requestBody']['content']['application/json'];
type AnalyticsView = Extract<ExportBody, { kind: 'analytics' }>['view'];

/** An export as GET …/exports/{exportId} answers it. */
type ExportInfo = operations['getApiV1SitesSiteIdExportsExportId']['responses'][200]['content']['application/json'];

/** While an export is being made, its progress is asked for this often. */
const WATCH_EVERY_MS = 1000;

const size = (bytes: number) =>
  bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A datetime-local value (the browser's zone) as an ISO instant, or undefined when empty. */
const instant = (local: FormDataEntryValue | null) => (local ? new Date(String(local)).toISOString() : undefined);
const text = (v: FormDataEntryValue | null) => (v ? String(v) : undefined);

function StartForm({ siteId, onStarted }: { siteId: string; onStarted: () => void }) {
  const [kind, setKind] = useState<'records' | 'analytics'>('records');
  const [view, setView] = useState<AnalyticsView>('overview');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const format = String(form.get('format')) as ExportBody['format'];
    const body: ExportBody =
      kind === 'records'
        ? {
            kind,
            resource: String(form.get('resource')) as Extract<ExportBody, { kind: 'records' }>['resource'],
            format,
            from: instant(form.get('from')),
            to: instant(form.get('to')),
          }
        : {
            kind,
            view,
            format,
            from: text(form.get('from')),
            to: text(form.get('to')),
            tz: text(form.get('tz')),
            interval: view === 'timeseries' ? (String(form.get('interval')) as 'day' | 'week' | 'month') : undefined,
          };
    setError(null);
    setBusy(true);
    try {
      await call(api.POST('/api/v1/sites/{siteId}/exports', { params: { path: { siteId } }, body }));
      onStarted();
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="export-start-title">
      <h3 id="export-start-title">Start an export</h3>
      <div className="filters">
        <Field label="What">
          {(id) => (
            <select id={id} value={kind} onChange={(e) => setKind(e.target.value as 'records' | 'analytics')}>
              <option value="records">Records</option>
              <option value="analytics">Analytics view</option>
            </select>
          )}
        </Field>
        {kind === 'records' ? (
          <Field label="Family">
            {(id) => (
              <select id={id} name="resource" defaultValue="events">
                {RESOURCES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : (
          <Field label="View">
            {(id) => (
              <select id={id} value={view} onChange={(e) => setView(e.target.value as AnalyticsView)}>
                {VIEW_NAMES.map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <Field label="Format">
          {(id) => (
            <select id={id} name="format" defaultValue="csv">
              <option value="csv">CSV</option>
              <option value="ndjson">NDJSON</option>
            </select>
          )}
        </Field>
        {kind === 'records' ? (
          <>
            <Field label="From (your time)" hint="Empty: from the first record">
              {(id, note) => <input id={id} name="from" type="datetime-local" aria-describedby={note} />}
            </Field>
            <Field label="To (your time)" hint="Empty: up to the last">
              {(id, note) => <input id={id} name="to" type="datetime-local" aria-describedby={note} />}
            </Field>
          </>
        ) : (
          <>
            <Field label="From" hint="Empty: 30 days before To">
              {(id, note) => <input id={id} name="from" type="date" aria-describedby={note} />}
            </Field>
            <Field label="To (exclusive)" hint="Empty: now">
              {(id, note) => <input id={id} name="to" type="date" aria-describedby={note} />}
            </Field>
            <Field label="Time zone" hint="Empty: the server's">
              {(id, note) => <input id={id} name="tz" placeholder="Asia/Shanghai" aria-describedby={note} />}
            </Field>
            {view === 'timeseries' && (
              <Field label="Interval">
                {(id) => (
                  <select id={id} name="interval" defaultValue="day">
                    <option value="day">day</option>
                    <option value="week">week</option>
                    <option value="month">month</option>
                  </select>
                )}
              </Field>
            )}
          </>
        )}
        <button type="submit" disabled={busy}>
          Start export
        </button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}

function what(r: ExportBody): string {
  const window = [r.from && `from ${r.from}`, r.to && `to ${r.to}`].filter(Boolean).join(' ');
  const name = r.kind === 'records' ? r.resource : `analytics ${r.view}`;
  return `${name} (${r.format.toUpperCase()})${window ? `, ${window}` : ''}`;
}

function Progress({ e }: { e: ExportInfo }) {
  if (e.status === 'running' && e.rowsTotal) {
    return (
      <>
        <progress value={e.rowsDone} max={e.rowsTotal} aria-label={`Export ${e.id} progress`} />{' '}
        <span className="small">
          {count(e.rowsDone)} / {count(e.rowsTotal)}
        </span>
      </>
    );
  }
  if (e.status === 'failed') return <span className="small">failed: {e.error?.detail}</span>;
  return <span className="small">{e.status === 'completed' ? `${count(e.rowsDone)} rows` : e.status}</span>;
}

/** The site's exports: start one, watch it being made, download it while it is kept. */
export function Exports({ siteId }: { siteId: string }) {
  const list = useLoad(
    () =>
      call<{ data: ExportInfo[] }>(
        api.GET('/api/v1/sites/{siteId}/exports', { params: { path: { siteId }, query: { limit: '20' } } }),
      ),
    siteId,
  );
  const exports = list.data?.data ?? [];
  const busy = exports.some((e) => e.status === 'queued' || e.status === 'running');
  const { reload } = list;
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new answer (`list.data`) schedules the next look.
  useEffect(() => {
    if (!busy) return;
    const timer = setTimeout(reload, WATCH_EVERY_MS);
    return () => clearTimeout(timer);
  }, [busy, list.data, reload]);
  return (
    <section aria-labelledby="exports-title">
      <h2 id="exports-title">Exports</h2>
      <p className="muted small">
        Files of a record family or an analytics view, made in the background and kept 24 hours by default.
      </p>
      <StartForm siteId={siteId} onStarted={reload} />
      <ErrorNote error={list.error} />
      {list.loading && !list.data && <Loading what="exports" />}
      {list.data && exports.length === 0 && <p className="muted">No exports yet.</p>}
      {exports.length > 0 && (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="sr-only">Recent exports</caption>
            <thead>
              <tr>
                <th scope="col">Asked</th>
                <th scope="col">What</th>
                <th scope="col">Progress</th>
                <th scope="col">Size</th>
                <th scope="col">File</th>
              </tr>
            </thead>
            <tbody aria-live="polite">
              {exports.map((e) => (
                <tr key={e.id}>
                  <td>{dateTime(e.createdAt)}</td>
                  <td>{what(e.request)}</td>
                  <td>
                    <Progress e={e} />
                  </td>
                  <td>{e.bytes ? size(e.bytes) : '—'}</td>
                  <td>
                    {e.downloadUrl ? (
                      <>
                        <a href={e.downloadUrl} download>
                          Download
                        </a>{' '}
                        <span className="muted small">until {dateTime(e.expiresAt)}</span>
                      </>
                    ) : e.status === 'expired' ? (
                      <span className="muted small">deleted</span>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
