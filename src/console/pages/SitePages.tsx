import { Suspense } from 'react';
import { Link, Redirect, Route, Switch, useLocation, useParams } from 'wouter';
import { api, call } from '../api/client.ts';
import { ErrorNote, ExternalLink, Loading, ReviewBadge } from '../ui/bits.tsx';
import { lazyPage } from '../ui/lazy-page.ts';
import { useLoad } from '../ui/use-load.ts';
import { Credentials } from './Credentials.tsx';
import { Exports } from './Exports.tsx';
import { Ingest } from './Ingest.tsx';
import { Records } from './Records.tsx';
import { SiteSettings } from './SiteSettings.tsx';

// The chart library comes with the analytics and GEO pages only.
export const Analytics = lazyPage(() => import('./Analytics.tsx'));
const GeoPages = lazyPage(() => import('./geo/GeoPages.tsx'));

const TABS = [
  ['analytics', 'Analytics'],
  ['geo', 'GEO'],
  ['ingest', 'Ingest'],
  ['records', 'Records'],
  ['exports', 'Exports'],
  ['credentials', 'Credentials'],
  ['settings', 'Settings'],
] as const;

export default function SitePages() {
  const { siteId } = useParams<{ siteId: string }>();
  const site = useLoad(() => call(api.GET('/api/v1/sites/{siteId}', { params: { path: { siteId } } })), siteId);
  const [path] = useLocation();
  const tab = path.split('/')[3] ?? '';
  if (site.error) return <ErrorNote error={site.error} />;
  const s = site.data;
  // The tab's own requests start at once instead of waiting for the site's profile.
  return (
    <>
      <div className="title-row">
        <h1>{s?.name ?? 'Site'}</h1>
        {s && <ReviewBadge status={s.reviewStatus} />}
      </div>
      <p className="muted small">{s ? <ExternalLink url={s.websiteUrl} /> : '\u00a0'}</p>
      <nav aria-label="Site" className="tabs">
        {TABS.map(([key, label]) => (
          <Link key={key} href={`/sites/${siteId}/${key}`} aria-current={tab === key ? 'page' : undefined}>
            {label}
          </Link>
        ))}
      </nav>
      <Suspense fallback={<Loading what="page" />}>
        <Switch>
          <Route path="/sites/:siteId/analytics">
            <Analytics siteId={siteId} />
          </Route>
          <Route path="/sites/:siteId/geo/*?">
            <GeoPages siteId={siteId} />
          </Route>
          <Route path="/sites/:siteId/ingest">
            <Ingest siteId={siteId} />
          </Route>
          <Route path="/sites/:siteId/records">
            <Records siteId={siteId} />
          </Route>
          <Route path="/sites/:siteId/exports">
            <Exports siteId={siteId} />
          </Route>
          <Route path="/sites/:siteId/credentials">
            <Credentials siteId={siteId} />
          </Route>
          <Route path="/sites/:siteId/settings">
            {s ? <SiteSettings site={s} onSaved={site.reload} /> : <Loading what="site" />}
          </Route>
          <Route>
            <Redirect to={`/sites/${siteId}/analytics`} replace />
          </Route>
        </Switch>
      </Suspense>
    </>
  );
}
