import { accountRoutes } from '../accounts/routes.ts';
import { adminRoutes } from '../admin/routes.ts';
import { analyticsRoutes } from '../analytics/routes.ts';
import { credentialRoutes } from '../credentials/routes.ts';
import { exportRoutes } from '../exports/routes.ts';
import { geoRoutes } from '../geo/routes.ts';
import { ingestRoutes } from '../ingest/routes.ts';
import { limitRoutes } from '../limits/routes.ts';
import { recordRoutes } from '../records/routes.ts';
import { relayAdminRoutes } from '../relay/admin-routes.ts';
import { relayKeyRoutes } from '../relay/key-routes.ts';
import { relayUsageRoutes } from '../relay/usage-routes.ts';
import { relayRoutes } from '../relay/routes.ts';
import { siteRoutes } from '../sites/routes.ts';
import { healthRoutes } from './health-routes.ts';
import { openApiRoute } from './openapi-route.ts';
import type { Route } from './route.ts';

/** Every route the front door serves; each feature owns its list. */
export function allRoutes(isDraining: () => boolean): Route[] {
  const routes = [
    ...healthRoutes(isDraining),
    ...accountRoutes,
    ...adminRoutes,
    ...siteRoutes,
    ...limitRoutes,
    ...credentialRoutes,
    ...ingestRoutes,
    ...recordRoutes,
    ...geoRoutes,
    ...analyticsRoutes,
    ...exportRoutes,
    ...relayAdminRoutes,
    ...relayKeyRoutes,
    ...relayUsageRoutes,
    ...relayRoutes,
  ];
  return [...routes, openApiRoute(routes)];
}
