import { useState } from 'react';
import { Link } from 'wouter';
import { api, call } from '../api/client.ts';
import { ErrorNote, ExternalLink, Loading, ReviewBadge } from '../ui/bits.tsx';
import { useLoad } from '../ui/use-load.ts';
import { SiteForm } from './SiteForm.tsx';

export default function Sites() {
  const sites = useLoad(() => call(api.GET('/api/v1/me/sites')), 'sites');
  const [adding, setAdding] = useState(false);
  return (
    <>
      <div className="title-row">
        <h1>Sites</h1>
        <button type="button" onClick={() => setAdding((a) => !a)} aria-expanded={adding}>
          {adding ? 'Cancel' : 'Submit a site'}
        </button>
      </div>
      {adding && (
        <section aria-labelledby="submit-title">
          <h2 id="submit-title">Submit a site for review</h2>
          <SiteForm
            submitLabel="Submit for review"
            onSubmit={async (f) => {
              await call(api.POST('/api/v1/me/sites', { body: f }));
              setAdding(false);
              sites.reload();
            }}
          />
        </section>
      )}
      <ErrorNote error={sites.error} />
      {sites.loading && !sites.data && <Loading what="sites" />}
      {sites.data && sites.data.data.length === 0 && (
        <p>No sites yet. Submit your first one: it can ingest data at once and appears publicly once approved.</p>
      )}
      <ul className="site-list">
        {sites.data?.data.map((s) => (
          <li key={s.id} className="card">
            <div className="title-row">
              <h2 className="h3">
                <Link href={`/sites/${s.id}/analytics`}>{s.name}</Link>
              </h2>
              <ReviewBadge status={s.reviewStatus} />
            </div>
            <p className="muted small">
              <ExternalLink url={s.websiteUrl} /> · {s.category}
            </p>
            <p>{s.description}</p>
          </li>
        ))}
      </ul>
    </>
  );
}
