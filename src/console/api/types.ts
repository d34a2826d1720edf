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
export type Account = Answer<'/api/v1/admin/accounts', 'post'>;
/** An account as the platform admin's list shows it: with its relay group. */
export type AdminAccount = Answer<'/api/v1/admin/accounts', 'get'>['data'][number];
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

type GeoGetPath = {
  [P in keyof paths]: P extends `/api/v1/sites/{siteId}/geo/${string}`
    ? 'get' extends keyof paths[P]
      ? P
      : never
    : never;
}[keyof paths];
type Geo<V extends string> = Answer<Extract<GeoGetPath, `${string}/geo/${V}`>, 'get'>;
/** One page of a paged list, as every paged route answers. */
export type Paged<T> = { data: T[]; pagination: Geo<'runs'>['pagination'] };
export type GeoConfig = NonNullable<Geo<'config'>['data']>;
export type GeoEntity = GeoConfig['brand'];
export type GeoPrompt = Geo<'prompts'>['data'][number];
export type GeoRun = Geo<'runs'>['data'][number];
export type RunStatus = GeoRun['status'];
export type GeoAnswer = Geo<'answers'>['data'][number];
export type GeoMention = GeoAnswer['mentions'][number];
export type GeoCitedUrl = Geo<'citations'>['data'][number];
export type GeoOverview = Geo<'overview'>;
export type GeoMetrics = GeoOverview['data']['overall'];
export type Ratio = GeoMetrics['mention_rate'];
export type GeoTrends = Geo<'trends'>;
export type GeoTraffic = Geo<'traffic'>;
export type GeoAudit = Geo<'reports'>['data'][number];

export type RelayGroup = Answer<'/api/v1/relay/groups', 'get'>['data'][number];
/** A relay key as listed; `key` only in the answer that created it. */
export type RelayKey = Answer<'/api/v1/me/relay-keys', 'get'>['data'][number] & { key?: string };
export type Budget = NonNullable<RelayKey['budget']>;
export type Channel = Answer<'/api/v1/relay/channels', 'get'>['data'][number];
export type RelayModel = Answer<'/api/v1/relay/models', 'get'>['data'][number];
export type Price = NonNullable<RelayModel['price']>;
export type RelayUsage = Answer<'/api/v1/me/relay-usage', 'get'>;
