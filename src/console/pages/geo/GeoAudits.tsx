import { useState, type FormEvent } from 'react';
import { api, type ApiError, call } from '../../api/client.ts';
import type { GeoAudit, Paged } from '../../api/types.ts';
import { ErrorNote, ExternalLink, Field, Loading } from '../../ui/bits.tsx';
import { dateTime } from '../../ui/format.ts';
import { useLoad } from '../../ui/use-load.ts';

const CHECK_TEXT = { pass: 'Pass', warn: 'Warning', fail: 'Fail' } as const;

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
                    <code>{c.id}</code>
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

export function GeoAudits({ siteId }: { siteId: string }) {
  const reports = useLoad(
    () =>
      call<Paged<GeoAudit>>(
        api.GET('/api/v1/sites/{siteId}/geo/reports', { params: { path: { siteId }, query: { limit: '20' } } }),
      ),
    siteId,
  );
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
        <ErrorNote error={reports.error} />
        {reports.loading && !reports.data && <Loading what="audits" />}
        {reports.data &&
          (reports.data.data.length === 0 ? (
            <p>No audits yet.</p>
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
