/** Shapes of the relay endpoints' answers as the console reads them (src/relay/*-routes.ts). */

export interface RelayGroup {
  name: string;
  /** Model ids, or ['*'] for every model. */
  models: string[];
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface Budget {
  /** A decimal string, e.g. "12.5". */
  amount: string;
  currency: string;
  period: 'day' | 'month' | 'total';
}

export interface RelayKey {
  id: string;
  name: string;
  prefix: string;
  models: string[];
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  budget: Budget | null;
  expiresAt: string | null;
  siteId: string | null;
  createdAt: string;
  disabledAt: string | null;
  /** Only in the answer that created it. */
  key?: string;
}

export interface Channel {
  id: string;
  name: string;
  baseUrl: string;
  models: string[];
  protocols: string[];
  priority: number;
  weight: number;
  enabled: boolean;
  createdAt: string;
}

export interface Price {
  model: string;
  currency: string;
  effectiveAt: string;
  input: string;
  cachedInput: string;
  output: string;
}

export interface RelayModel {
  id: string;
  efforts: string[] | null;
  kind: 'chat' | 'embedding' | null;
  allowUnpriced: boolean;
  price: Price | null;
}
