import { api, call } from '../api/client.ts';
import { RESOURCES, type Resource } from '../../auth/scopes.ts';
import { ErrorNote, Field, Loading } from '../ui/bits.tsx';
import { dateTime, localInstant } from '../ui/format.ts';
import { useLoad } from '../ui/use-load.ts';
import { useQuery } from '../ui/use-query.ts';

const PAGE = 50;

const cell = (v: unknown) =>
  v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

export function Records({ siteId }: { siteId: string }) {
  const { q, set } = useQuery();
  const family = (RESOURCES as readonly string[]).includes(q.get('family') ?? '')
    ? (q.get('family') as Resource)
    : 'events';
  const from = q.get('from');
  const to = q.get('to');
  const offset = Number(q.get('offset') ?? 0) || 0;
  const page = useLoad(
    () =>
      call(
        api.GET(`/api/v1/sites/{siteId}/${family}`, {
          params: {
            path: { siteId },
            query: { limit: String(PAGE), offset: String(offset), from: localInstant(from), to: localInstant(to) },
          },
        }),
      ),
    `${siteId}/${family}/${from}/${to}/${offset}`,
  );
  // Each family has its own fields; the table shows whichever the page's records carry.
  const rows: readonly Record<string, unknown>[] = page.data?.data ?? [];
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const download = () => {
    const blob = new Blob([JSON.stringify(rows, null, 2)], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `${family}-${offset + 1}-${offset + rows.length}.json`;
    a.click();
    URL.revokeObjectURL(a.href);
  };
  return (
    <section aria-labelledby="records-title">
      <h2 id="records-title">Records</h2>
      <div className="filters">
        <Field label="Family">
          {(id) => (
            <select id={id} value={family} onChange={(e) => set({ family: e.target.value, offset: null })}>
              {RESOURCES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="From (your time)">
          {(id) => (
            <input
              id={id}
              type="datetime-local"
              value={from ?? ''}
              onChange={(e) => set({ from: e.target.value, offset: null })}
            />
          )}
        </Field>
        <Field label="To (your time)">
          {(id) => (
            <input
              id={id}
              type="datetime-local"
              value={to ?? ''}
              onChange={(e) => set({ to: e.target.value, offset: null })}
            />
          )}
        </Field>
        <button type="button" className="secondary" onClick={download} disabled={rows.length === 0}>
          Download shown (JSON)
        </button>
      </div>
      <ErrorNote error={page.error} />
      {page.loading && !page.data && <Loading what="records" />}
      {page.data && (
        <>
          <p className="muted small" aria-live="polite">
            {page.data.pagination.total === 0
              ? 'No records.'
              : `Records ${offset + 1}–${offset + rows.length} of ${page.data.pagination.total}`}{' '}
            · last ingested {dateTime(page.data.freshness.last_ingested_at)}
          </p>
          {rows.length > 0 && (
            <div className="table-wrap" tabIndex={0}>
              <table className="records">
                <caption className="sr-only">{family} records</caption>
                <thead>
                  <tr>
                    {columns.map((c) => (
                      <th key={c} scope="col">
                        {c}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: a page is replaced whole, never reordered
                    <tr key={i}>
                      {columns.map((c) => (
                        <td key={c}>{cell(r[c])}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <div className="pager">
            <button
              type="button"
              className="secondary"
              disabled={offset === 0}
              onClick={() => set({ offset: String(Math.max(0, offset - PAGE)) })}
            >
              Previous
            </button>
            <button
              type="button"
              className="secondary"
              disabled={page.data.pagination.next_offset === null}
              onClick={() => set({ offset: String(page.data!.pagination.next_offset) })}
            >
              Next
            </button>
          </div>
        </>
      )}
    </section>
  );
}
