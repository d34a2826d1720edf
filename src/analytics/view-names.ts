// Free of imports, so the console lists the views without bundling the server's schemas.

/** Every analytics view, the last segment of GET /sites/{siteId}/analytics/<view>. */
export const VIEW_NAMES = [
  'overview',
  'acquisition',
  'timeseries',
  'finance',
  'funnel',
  'retention',
  'unit-economics',
] as const;
export type ViewName = (typeof VIEW_NAMES)[number];
