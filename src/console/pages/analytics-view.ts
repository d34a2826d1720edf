import { api, call } from '../api/client.ts';
import { isTimeZone } from '../../shared/time-zone.ts';
import { addDays, todayIn, zonedToUtc } from '../ui/zones.ts';

/**
 * The analytics view's state (read from the URL) and the requests it makes. Small and free of
 * React and the chart library, so the entry bundle can start those requests while the page's
 * own code is still loading (see prefetchAnalytics).
 */

export const DEFAULT_TZ = 'Asia/Shanghai';
export const PRESETS = [
  ['today', 'Today'],
  ['7d', 'Last 7 days'],
  ['30d', 'Last 30 days'],
  ['90d', 'Last 90 days'],
  ['month', 'This month'],
  ['last-month', 'Last month'],
  ['custom', 'Custom'],
] as const;
export type Preset = (typeof PRESETS)[number][0];
export type Interval = 'day' | 'week' | 'month';

export interface ViewState {
  preset: Preset;
  tz: string;
  interval: Interval;
  /** Custom bounds as wall-clock times in tz (YYYY-MM-DDTHH:mm). */
  from: string;
  to: string;
}

/** The window a state asks for, as the API's from/to: local dates for presets, instants for custom. */
export function windowOf(s: ViewState): { from: string; to: string } {
  const today = todayIn(s.tz);
  const days = (n: number) => ({ from: addDays(today, 1 - n), to: addDays(today, 1) });
  switch (s.preset) {
    case 'today':
      return days(1);
    case '7d':
      return days(7);
    case '90d':
      return days(90);
    case 'month':
      return { from: `${today.slice(0, 8)}01`, to: addDays(today, 1) };
    case 'last-month': {
      const first = `${today.slice(0, 8)}01`;
      return { from: `${addDays(first, -1).slice(0, 8)}01`, to: first };
    }
    case 'custom':
      return s.from && s.to ? { from: zonedToUtc(s.from, s.tz), to: zonedToUtc(s.to, s.tz) } : days(30);
    default:
      return days(30);
  }
}

export function readState(search: string): ViewState {
  const q = new URLSearchParams(search);
  const preset = (PRESETS.some(([p]) => p === q.get('range')) ? q.get('range') : '30d') as Preset;
  const tz = q.get('tz') && isTimeZone(q.get('tz')!) ? q.get('tz')! : DEFAULT_TZ;
  const interval = (['day', 'week', 'month'].includes(q.get('interval') ?? '') ? q.get('interval') : 'day') as Interval;
  return { preset, tz, interval, from: q.get('from') ?? '', to: q.get('to') ?? '' };
}

export const VIEWS = ['overview', 'timeseries', 'acquisition', 'finance', 'funnel', 'retention'] as const;
export type ViewName = (typeof VIEWS)[number];

/** One view's request for a state: `key` names it exactly (site, window, zone, interval). */
export function viewRequest(
  siteId: string,
  s: ViewState,
  view: ViewName,
): { key: string; load: () => Promise<unknown> } {
  const w = windowOf(s);
  const query = { from: w.from, to: w.to, tz: s.tz };
  const params = { path: { siteId }, query };
  const key = `${view}/${siteId}/${w.from}/${w.to}/${s.tz}${view === 'timeseries' ? `/${s.interval}` : ''}`;
  switch (view) {
    case 'timeseries':
      return {
        key,
        load: () =>
          call(
            api.GET('/api/v1/sites/{siteId}/analytics/timeseries', {
              params: { path: { siteId }, query: { ...query, interval: s.interval } },
            }),
          ),
      };
    case 'overview':
      return { key, load: () => call(api.GET('/api/v1/sites/{siteId}/analytics/overview', { params })) };
    case 'acquisition':
      return { key, load: () => call(api.GET('/api/v1/sites/{siteId}/analytics/acquisition', { params })) };
    case 'finance':
      return { key, load: () => call(api.GET('/api/v1/sites/{siteId}/analytics/finance', { params })) };
    case 'funnel':
      return { key, load: () => call(api.GET('/api/v1/sites/{siteId}/analytics/funnel', { params })) };
    case 'retention':
      return { key, load: () => call(api.GET('/api/v1/sites/{siteId}/analytics/retention', { params })) };
  }
}

const ANALYTICS_PATH = /^\/sites\/([^/]+)\/analytics$/;

/** The site of an analytics page's path, or null for any other page. */
export function isAnalyticsPath(path: string): string | null {
  const m = ANALYTICS_PATH.exec(path);
  return m ? decodeURIComponent(m[1]!) : null;
}
