import { Fragment, useState, type FormEvent } from 'react';
import { useLocation, useSearch } from 'wouter';
import { api, type ApiError, call } from '../../api/client.ts';
import type { GeoAudit, Paged } from '../../api/types.ts';
import { ErrorNote, ExternalLink, Field, Loading } from '../../ui/bits.tsx';
import { dateTime } from '../../ui/format.ts';
import { useLoad } from '../../ui/use-load.ts';

const CHECK_TEXT = { pass: 'Pass', warn: 'Warning', fail: 'Fail' } as const;
const AUDIT_STATUS = { completed: 'Completed', failed: 'Failed (page not read)', running: 'Running' } as const;
type AuditStatus = keyof typeof AUDIT_STATUS;
const isStatus = (s: string | null): s is AuditStatus => s !== null && Object.hasOwn(AUDIT_STATUS, s);

/**
 * A check id (`robots_ai_crawlers`) that may break only after an underscore, so a narrow
 * column wraps it between words instead of inside one.
 */
function CheckId({ id }: { id: string }) {
  const parts = id.split('_');
  return (
    <code className="check-id">
      {parts.map((part, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed id, in order
        <Fragment key={i}>
          {part}
          {i < parts.length - 1 && (
            <>
              _<wbr />
            </>
          )}
        </Fragment>
      ))}
    </code>
  );
}

/** A fresh Idempotency-Key per audit the person asks for (a retry of one request reuses it). */
function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function AuditResult({ a }: { a: GeoAudit }) {
  return (
    <article className="card" aria-labelledby={`audit-${a.id}`}>
      <h3 id={`audit-${a.id}`}>
        <ExternalLink url={a.url} />
      </h3>
      <p data-testid="audit-score">
        {a.status === 'running' ? (
          'Still running: refresh the list in a few seconds.'
        ) : (
          <>
            Score <strong>{a.score}</strong> of 100
            {a.status === 'failed' && ' (the page could not be read)'}
            {a.final_url && a.final_url !== a.url && (
              <>
                {' '}
                · redirected to <ExternalLink url={a.final_url} />
              </>
            )}
          </>
        )}
      </p>
      {a.checks.length > 0 && (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="sr-only">Checks of {a.url}</caption>
            <thead>
              <tr>
                <th scope="col">Check</th>
                <th scope="col">Result</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {a.checks.map((c) => (
                <tr key={c.id}>
                  <th scope="row">
                    <CheckId id={c.id} />
                  </th>
                  <td>
                    <span className={`badge check-${c.status}`}>{CHECK_TEXT[c.status]}</span>
                  </td>
                  <td>{c.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}

/** The list's filter lives in the URL (`?status=…&url=…`), so a link reopens the same list. */
function useAuditFilter() {
  const search = useSearch();
  const [path, navigate] = useLocation();
  const q = new URLSearchParams(search);
  const status = q.get('status');
  const set = (name: 'status' | 'url', value: string) => {
    const next = new URLSearchParams(search);
    if (value) next.set(name, value);
    else next.delete(name);
    navigate(next.size ? `${path}?${next}` : path, { replace: true });
  };
  return { status: isStatus(status) ? status : null, url: q.get('url') || null, set };
}

export function GeoAudits({ siteId }: { siteId: string }) {
  const filter = useAuditFilter();
  const reports = useLoad(
    () =>
      call<Paged<GeoAudit>>(
        api.GET('/api/v1/sites/{siteId}/geo/reports', {
          params: {
            path: { siteId },
            query: {
              limit: '20',
              ...(filter.status ? { status: filter.status } : {}),
              ...(filter.url ? { url: filter.url } : {}),
            },
          },
        }),
      ),
    `${siteId}/${filter.status}/${filter.url}`,
  );
  // The pages audited so far (each with its latest finished audit) are the URL filter's choices.
  const audited = useLoad(
    () => call(api.GET('/api/v1/sites/{siteId}/geo/site-checks', { params: { path: { siteId } } })),
    `${siteId}/${reports.data?.pagination.total}`,
  );
  const pages = [...new Set([...(audited.data?.data.map((a) => a.url) ?? []), ...(filter.url ? [filter.url] : [])])];
  const [result, setResult] = useState<GeoAudit | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const start = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(null);
    setResult(null);
    setBusy(true);
    try {
      const audit = await call<GeoAudit>(
        api.POST('/api/v1/sites/{siteId}/geo/audits', {
          params: { path: { siteId } },
          headers: { 'Idempotency-Key': newKey() },
          body: { url: String(new FormData(e.currentTarget).get('url')).trim() },
        }),
      );
      setResult(audit);
      reports.reload();
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <form className="card" onSubmit={start} aria-labelledby="audit-title">
        <h3 id="audit-title">Audit a page</h3>
        <p className="muted small">
          Checks what AI crawlers and assistants need: robots.txt, llms.txt, sitemap, title, description, structured
          data, text in the served HTML. Takes up to 15 seconds.
        </p>
        <div className="filters">
          <Field label="Page URL" error={error?.field('/url')}>
            {(id, d) => <input id={id} name="url" type="url" required placeholder="https://…" aria-describedby={d} />}
          </Field>
          <button type="submit" disabled={busy}>
            {busy ? 'Auditing…' : 'Start audit'}
          </button>
        </div>
        <ErrorNote error={error?.field('/url') ? null : error} />
      </form>
      {result && <AuditResult a={result} />}
      <section aria-labelledby="reports-title">
        <h3 id="reports-title">Recent audits</h3>
        <search className="filters" aria-label="Filter audits">
          <Field label="Status">
            {(id) => (
              <select id={id} value={filter.status ?? ''} onChange={(e) => filter.set('status', e.target.value)}>
                <option value="">Any status</option>
                {Object.entries(AUDIT_STATUS).map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Page">
            {(id) => (
              <select id={id} value={filter.url ?? ''} onChange={(e) => filter.set('url', e.target.value)}>
                <option value="">Every page</option>
                {pages.map((url) => (
                  <option key={url} value={url}>
                    {url}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </search>
        <ErrorNote error={reports.error} />
        {reports.loading && !reports.data && <Loading what="audits" />}
        {reports.data &&
          (reports.data.data.length === 0 ? (
            <p>{filter.status || filter.url ? 'No audits match this filter.' : 'No audits yet.'}</p>
          ) : (
            <ul className="plain-list">
              {reports.data.data.map((a) => (
                <li key={a.id}>
                  <details>
                    <summary>
                      {a.url} · {a.status === 'running' ? 'running' : `score ${a.score}`} ·{' '}
                      {dateTime(a.created_at ?? a.completed_at)}
                    </summary>
                    <AuditResult a={a} />
                  </details>
                </li>
              ))}
            </ul>
          ))}
      </section>
    </>
  );
}
