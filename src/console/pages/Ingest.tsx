import { Fragment } from 'react';
import { api, call } from '../api/client.ts';
import { ErrorNote, Loading } from '../ui/bits.tsx';
import { dateTime } from '../ui/format.ts';
import { useLoad } from '../ui/use-load.ts';

export function Ingest({ siteId }: { siteId: string }) {
  const batches = useLoad(
    () =>
      call(api.GET('/api/v1/sites/{siteId}/ingest/batches', { params: { path: { siteId }, query: { limit: 50 } } })),
    siteId,
  );
  return (
    <section aria-labelledby="ingest-title">
      <div className="title-row">
        <h2 id="ingest-title">Recent batches</h2>
        <button type="button" className="secondary" onClick={batches.reload}>
          Refresh
        </button>
      </div>
      <p className="muted">
        The last 50 batches your servers sent, newest first. A rejected batch changed nothing; each record's reason is
        listed.
      </p>
      <ErrorNote error={batches.error} />
      {batches.loading && !batches.data && <Loading what="batches" />}
      {batches.data?.data.length === 0 && (
        <p>
          No batches yet. Create an ingest credential and send records to{' '}
          <code>POST /api/v1/sites/{siteId}/ingest/&lt;family&gt;</code>.
        </p>
      )}
      {batches.data && batches.data.data.length > 0 && (
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="sr-only">Recent ingest batches</caption>
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">Family</th>
                <th scope="col">Batch</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Records
                </th>
                <th scope="col" className="num">
                  Applied
                </th>
                <th scope="col" className="num">
                  Unchanged
                </th>
              </tr>
            </thead>
            <tbody>
              {batches.data.data.map((b) => (
                <Fragment key={`${b.resource}/${b.batch_id}`}>
                  <tr>
                    <td>{dateTime(b.received_at)}</td>
                    <td>{b.resource}</td>
                    <td>
                      <code>{b.batch_id}</code>
                    </td>
                    <td>
                      <span className={`badge badge-${b.status}`}>{b.status}</span>
                    </td>
                    <td className="num">{b.received}</td>
                    <td className="num">{b.applied}</td>
                    <td className="num">{b.unchanged}</td>
                  </tr>
                  {b.problem && (
                    <tr className="problem-row">
                      <td colSpan={7}>
                        <strong>{b.problem.code}</strong>: {b.problem.detail}
                        {b.problem.errors && (
                          <ul>
                            {b.problem.errors.map((e) => (
                              <li key={e.path + e.message}>
                                <code>{e.path}</code> {e.message}
                              </li>
                            ))}
                          </ul>
                        )}
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
