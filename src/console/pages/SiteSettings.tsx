import { useState } from 'react';
import { api, call } from '../api/client.ts';
import type { Site } from '../api/types.ts';
import { SiteForm } from './SiteForm.tsx';

export function SiteSettings({ site, onSaved }: { site: Site; onSaved: () => void }) {
  const [saved, setSaved] = useState<Site | null>(null);
  return (
    <section aria-labelledby="settings-title">
      <h2 id="settings-title">Site profile</h2>
      {site.reviewStatus !== 'pending_review' && (
        <p className="warning" role="note">
          This site is {site.reviewStatus}. Changing its name, URL, description, category or public metrics sends it
          back to review.
        </p>
      )}
      <SiteForm
        site={site}
        submitLabel="Save changes"
        onSubmit={async (f) => {
          const s = await call(api.PATCH('/api/v1/sites/{siteId}', { params: { path: { siteId: site.id } }, body: f }));
          setSaved(s);
          onSaved();
        }}
      />
      {saved && <p role="status">Saved. Review status: {saved.reviewStatus.replace('_', ' ')}.</p>}
    </section>
  );
}
