import type { components, paths } from './schema.d.ts';

/**
 * Names for the shapes the console reads, all taken from schema.d.ts: the OpenAPI document
 * generated from the routes' declared responses, which the server's tests check every answer
 * against. Nothing here is written by hand, so a changed answer fails `npm run typecheck`.
 */

/** The JSON body of the 200 answer of `method` on `path`. */
export type Answer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

type AnalyticsPath = Extract<keyof paths, `/api/v1/sites/{siteId}/analytics/${string}`>;
export type AnalyticsAnswer<V extends string> = Answer<Extract<AnalyticsPath, `${string}/${V}`>, 'get'>;

export type Problem = components['schemas']['Problem'];
export type Account = Answer<'/api/v1/admin/accounts', 'get'>['data'][number];
export type Site = Answer<'/api/v1/sites/{siteId}', 'get'>;
export type ReviewStatus = Site['reviewStatus'];
export type Credential = Answer<'/api/v1/sites/{siteId}/credentials', 'get'>['data'][number];
/** A credential just made: with its secret, shown once. */
export type NewCredential = Answer<'/api/v1/sites/{siteId}/credentials', 'post'>;
export type Receipt = Answer<'/api/v1/sites/{siteId}/ingest/batches', 'get'>['data'][number];

export type Overview = AnalyticsAnswer<'overview'>['data'];
export type Timeseries = AnalyticsAnswer<'timeseries'>['data'];
export type Acquisition = AnalyticsAnswer<'acquisition'>['data'];
export type SourceRow = Acquisition['channels'][number] | Acquisition['campaigns'][number];
export type Finance = AnalyticsAnswer<'finance'>['data'];
export type Funnel = AnalyticsAnswer<'funnel'>['data'];
export type Retention = AnalyticsAnswer<'retention'>['data'];
export type Coverage = AnalyticsAnswer<'overview'>['coverage'];
export type Freshness = AnalyticsAnswer<'overview'>['freshness'];
/** Minor units per currency, never converted. */
export type Money = Overview['receipts'];
