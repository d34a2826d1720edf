import { useRef } from 'react';
import { Link, Route, Switch, useLocation } from 'wouter';
import { api, call } from '../../api/client.ts';
import type { GeoConfig } from '../../api/types.ts';
import { ErrorNote, Loading } from '../../ui/bits.tsx';
import { useLoad } from '../../ui/use-load.ts';
import { GeoAudits } from './GeoAudits.tsx';
import { GeoRuns } from './GeoRuns.tsx';
import { GeoSetup } from './GeoSetup.tsx';
import { GeoVisibility } from './GeoVisibility.tsx';

const SECTIONS = [
  ['', 'Visibility'],
  ['runs', 'Runs and answers'],
  ['audits', 'Page audits'],
  ['setup', 'Setup'],
] as const;

/** GEO of one site: how AI assistants answer about it, and whether its pages suit them. */
export default function GeoPages({ siteId }: { siteId: string }) {
  const [path] = useLocation();
  const section = path.split('/')[4] ?? '';
  const base = `/sites/${siteId}/geo`;
  const config = useLoad(
    () =>
      call<{ data: GeoConfig | null }>(
        api.GET('/api/v1/sites/{siteId}/geo/config', { params: { path: { siteId } } }),
      ).then((r) => r.data),
    siteId,
  );
  // A reload after saving keeps the pages (and their messages) mounted; only the first load waits.
  const loaded = useRef(false);
  if (!config.loading) loaded.current = true;
  return (
    <section aria-labelledby="geo-title">
      <h2 id="geo-title" className="sr-only">
        GEO
      </h2>
      <nav aria-label="GEO" className="tabs subtabs">
        {SECTIONS.map(([key, label]) => (
          <Link key={key} href={key ? `${base}/${key}` : base} aria-current={section === key ? 'page' : undefined}>
            {label}
          </Link>
        ))}
      </nav>
      <ErrorNote error={config.error} />
      {!loaded.current ? (
        <Loading what="GEO configuration" />
      ) : (
        <Switch>
          <Route path="/sites/:siteId/geo/setup">
            <GeoSetup siteId={siteId} config={config.data} onSaved={config.reload} />
          </Route>
          <Route path="/sites/:siteId/geo/runs">
            <GeoRuns siteId={siteId} config={config.data} />
          </Route>
          <Route path="/sites/:siteId/geo/audits">
            <GeoAudits siteId={siteId} />
          </Route>
          <Route>
            <GeoVisibility siteId={siteId} config={config.data} />
          </Route>
        </Switch>
      )}
    </section>
  );
}
