import type { SiteRow } from './repo.ts';
import type { Site } from './schemas.ts';

/** The site as the API returns it (CONTRACT §2). */
export function presentSite(s: SiteRow): Site {
  return {
    id: s.id,
    name: s.name,
    websiteUrl: s.website_url,
    description: s.description,
    category: s.category,
    publicMetrics: s.public_metrics,
    reviewStatus: s.review_status,
    createdAt: s.created_at.toISOString(),
    updatedAt: s.updated_at.toISOString(),
  };
}
