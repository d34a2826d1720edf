import { z } from 'zod';

export const SITE_CATEGORIES = [
  'writing', 'chat', 'image', 'video', 'audio', 'developer', 'automation',
  'search', 'api', 'education', 'productivity', 'other',
] as const;
export type SiteCategory = (typeof SITE_CATEGORIES)[number];

// A submitted site is a public website, so only absolute http(s) URLs make sense here.
const WebsiteUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'must be an absolute http or https URL');

const fields = {
  name: z.string().min(2).max(160),
  websiteUrl: WebsiteUrl,
  description: z.string().min(2).max(2000),
  category: z.enum(SITE_CATEGORIES),
  publicMetrics: z.boolean(),
};

/** POST /me/sites (spec 2.5). */
export const SiteSubmitSchema = z.strictObject({ ...fields, publicMetrics: fields.publicMetrics.default(false) });
/** PATCH /sites/{siteId} (spec 2.5): every field optional, none extra. */
export const SiteUpdateSchema = z.strictObject(fields).partial();

export type SiteSubmit = z.infer<typeof SiteSubmitSchema>;
export type SiteUpdate = z.infer<typeof SiteUpdateSchema>;
