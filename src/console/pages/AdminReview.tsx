import { useState } from 'react';
import { api, type ApiError, call } from '../api/client.ts';
import type { Site } from '../api/types.ts';
import { ErrorNote, ExternalLink, Loading, ReviewBadge } from '../ui/bits.tsx';
import { dateTime } from '../ui/format.ts';
import { useLoad } from '../ui/use-load.ts';

export default function AdminReview() {
  const queue = useLoad(
    () => call(api.GET('/api/v1/admin/sites', { params: { query: { status: 'pending_review' } } })),
    'queue',
  );
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const decide = async (s: Site, decision: 'approved' | 'rejected') => {
    setError(null);
    try {
      await call(
        api.POST('/api/v1/admin/sites/{siteId}/review', { params: { path: { siteId: s.id } }, body: { decision } }),
      );
      setDone(`${s.name} ${decision}.`);
      queue.reload();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  return (
    <>
      <h1>Review queue</h1>
      <p className="muted">Sites waiting for review, oldest change first. Approved sites may show public metrics.</p>
      <p role="status">{done}</p>
      <ErrorNote error={queue.error ?? error} />
      {queue.loading && !queue.data && <Loading what="queue" />}
      {queue.data?.data.length === 0 && <p>Nothing to review.</p>}
      <ul className="site-list">
        {queue.data?.data.map((s) => (
          <li key={s.id} className="card">
            <div className="title-row">
              <h2 className="h3">{s.name}</h2>
              <ReviewBadge status={s.reviewStatus} />
            </div>
            <dl className="facts">
              <dt>Website</dt>
              <dd>
                <ExternalLink url={s.websiteUrl} />
              </dd>
              <dt>Owner</dt>
              <dd>{s.ownerEmail}</dd>
              <dt>Category</dt>
              <dd>{s.category}</dd>
              <dt>Public metrics</dt>
              <dd>{s.publicMetrics ? 'yes' : 'no'}</dd>
              <dt>Changed</dt>
              <dd>{dateTime(s.updatedAt)}</dd>
            </dl>
            <p>{s.description}</p>
            <div className="actions">
              <button type="button" onClick={() => decide(s, 'approved')} aria-label={`Approve ${s.name}`}>
                Approve
              </button>
              <button
                type="button"
                className="danger"
                onClick={() => decide(s, 'rejected')}
                aria-label={`Reject ${s.name}`}
              >
                Reject
              </button>
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}
