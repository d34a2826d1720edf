import { z } from 'zod';
import { httpUrl, text } from '../shared/text.ts';

import { SITE_CATEGORIES } from './categories.ts';

export { SITE_CATEGORIES, type SiteCategory } from './categories.ts';

const fields = {
  name: text({ min: 2, max: 160 }),
  // A submitted site is a public website, so only absolute http(s) URLs make sense here.
  websiteUrl: httpUrl({ max: 2048 }),
  description: text({ min: 2, max: 2000 }),
  category: z.enum(SITE_CATEGORIES),
  publicMetrics: z.boolean(),
};

/** POST /me/sites (spec 2.5). */
export const SiteSubmitSchema = z.strictObject({ ...fields, publicMetrics: fields.publicMetrics.default(false) });
/** PATCH /sites/{siteId} (spec 2.5): every field optional, none extra. */
export const SiteUpdateSchema = z.strictObject(fields).partial();

export const REVIEW_STATUSES = ['pending_review', 'approved', 'rejected'] as const;

/** A site as the API answers it (CONTRACT §2). */
export const SiteSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  websiteUrl: z.string(),
  description: z.string(),
  category: z.enum(SITE_CATEGORIES),
  publicMetrics: z.boolean(),
  reviewStatus: z.enum(REVIEW_STATUSES),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type Site = z.infer<typeof SiteSchema>;

export type SiteSubmit = z.infer<typeof SiteSubmitSchema>;
export type SiteUpdate = z.infer<typeof SiteUpdateSchema>;
