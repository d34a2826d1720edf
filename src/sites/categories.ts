// Plain data, no imports: the console's site form offers the same list.
export const SITE_CATEGORIES = [
  'writing',
  'chat',
  'image',
  'video',
  'audio',
  'developer',
  'automation',
  'search',
  'api',
  'education',
  'productivity',
  'other',
] as const;
export type SiteCategory = (typeof SITE_CATEGORIES)[number];
