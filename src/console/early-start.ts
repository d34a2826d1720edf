import { isAnalyticsPath, readState, VIEWS, viewRequest } from './pages/analytics-view.ts';
import { peekEarly, startEarly } from './ui/early.ts';

/**
 * The console's first script (index.html loads it before main.tsx): small, without React, so
 * an analytics page opened directly (a link, a reload) asks for its data while the browser is
 * still parsing and running React, instead of after /me and two code chunks, one round trip
 * each. The page takes each answer once (ui/early.ts).
 */
const siteId = isAnalyticsPath(location.pathname);
if (siteId) {
  const state = readState(location.search);
  // The figures and the chart first: the browser opens six connections to a host, and the
  // other four views would otherwise take them (and the server's time) from /me, the page's
  // code and the two views a person looks at first. The rest follow as soon as those are in.
  const first = (['overview', 'timeseries'] as const).map((view) => {
    const r = viewRequest(siteId, state, view);
    startEarly(r.key, r.load);
    return r.key;
  });
  const firstDone = Promise.allSettled(first.map((key) => peekEarly(key)));
  for (const view of VIEWS.filter((v) => v !== 'overview' && v !== 'timeseries')) {
    const r = viewRequest(siteId, state, view);
    startEarly(r.key, () => firstDone.then(r.load));
  }
  // The page's code too, in parallel with the data.
  void import('./pages/SitePages.tsx');
  void import('./pages/Analytics.tsx');
}
