import type { Db } from '../db/connection.ts';
import { HttpError } from '../errors/http-error.ts';
import { FreshCache } from './fresh-cache.ts';
import type { RelayKey } from './keys.ts';
import type { Price } from './money.ts';
import { DEFAULT_EFFORTS, type ModelKind, type Protocol } from './protocol.ts';
import {
  listCurrentPrices,
  listEnabledChannels,
  listModels,
  type ChannelRow,
  type ModelRow,
  type PriceRow,
} from './repo.ts';

export interface Channel {
  id: string;
  name: string;
  /** Scheme, host and port: the key of the channel's connection pool. */
  origin: string;
  /** Path of the base URL (e.g. `/v1`), to which the protocol's endpoint is appended. */
  basePath: string;
  apiKey: string | null;
  protocols: ReadonlySet<Protocol>;
  priority: number;
  weight: number;
}

export interface Model {
  id: string;
  efforts: readonly string[];
  /** Set by `radar relay model set`; null when nobody said, and then not enforced. */
  kind: ModelKind | null;
  /** Channels serving the model, highest priority first. */
  channels: readonly Channel[];
  /** Unix seconds the first serving channel was added, for the models list. */
  created: number;
  /** The price in force and those to come, newest first (see `priceAt`); empty when unpriced. */
  prices: readonly Price[];
  /** Whether a key with a budget may call the model while it has no price. */
  allowUnpriced: boolean;
}

/** One way to reach a model: a channel, and whether the request must be converted for it. */
export interface Route {
  channel: Channel;
  /** The protocol spoken upstream; differs from the request's when converting. */
  upstream: Protocol;
}

interface Snapshot {
  models: ReadonlyMap<string, Model>;
}

/**
 * Which models exist and which channels serve them, read from PostgreSQL at most once a
 * second (see FreshCache), so routing costs no round trip and a channel added with the CLI
 * is used within a second.
 */
export class Directory {
  private readonly cache: FreshCache<'all', Snapshot>;

  constructor(db: Db, opts: { maxAgeMs?: number } = {}) {
    const hardMs = opts.maxAgeMs ?? 1000;
    this.cache = new FreshCache(
      async () => build(...(await Promise.all([listEnabledChannels(db), listModels(db), listCurrentPrices(db)]))),
      { softMs: hardMs / 2, hardMs, maxEntries: 1 },
    );
  }

  /** The model, or 404 model_not_found (with a hint when only the letter case is wrong). */
  async model(id: string, key: RelayKey | null = null): Promise<Model> {
    const { models } = await this.cache.get('all');
    const model = models.get(id);
    if (model) return model;
    const lower = id.toLowerCase();
    const near = [...models.keys()].find((m) => m.toLowerCase() === lower && (!key || permits(key, m)));
    const hint = near ? ` Model ids are case-sensitive: did you mean '${near}'?` : '';
    throw new HttpError('model_not_found', {
      detail: `The model '${id}' does not exist or you do not have access to it.${hint}`,
      param: 'model',
    });
  }

  /** The model if it exists and the key may call it: 404 model_not_found, else 403. */
  async modelFor(key: RelayKey, id: string): Promise<Model> {
    const model = await this.model(id, key);
    if (!permits(key, id)) {
      throw new HttpError('model_not_permitted', {
        detail: `This API key may not call the model '${id}'.`,
        param: 'model',
      });
    }
    return model;
  }

  /** The models a key may call, in id order. */
  async modelsFor(key: RelayKey): Promise<Model[]> {
    const { models } = await this.cache.get('all');
    return [...models.values()]
      .filter((m) => permits(key, m.id))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

function permits(key: RelayKey, model: string): boolean {
  return key.models === null || key.models.has(model);
}

function build(rows: readonly ChannelRow[], settings: readonly ModelRow[], priceRows: readonly PriceRow[]): Snapshot {
  const byId = new Map(settings.map((s) => [s.id, s]));
  const prices = new Map<string, Price[]>();
  for (const p of priceRows) {
    let list = prices.get(p.model);
    if (!list) prices.set(p.model, (list = []));
    list.push({
      effectiveAt: p.effective_at,
      currency: p.currency,
      input: p.input_nanos,
      cachedInput: p.cached_input_nanos,
      output: p.output_nanos,
    });
  }
  const models = new Map<string, Model & { channels: Channel[] }>();
  for (const row of rows) {
    const channel = toChannel(row);
    for (const id of row.models) {
      let m = models.get(id);
      if (!m) {
        const s = byId.get(id);
        m = {
          id,
          efforts: s?.efforts ?? DEFAULT_EFFORTS,
          kind: s?.kind ?? null,
          channels: [],
          created: Math.floor(row.created_at.getTime() / 1000),
          prices: prices.get(id) ?? [],
          allowUnpriced: s?.allow_unpriced ?? false,
        };
        models.set(id, m);
      }
      m.channels.push(channel);
    }
  }
  return { models };
}

function toChannel(row: ChannelRow): Channel {
  const url = new URL(row.base_url);
  return {
    id: row.id,
    name: row.name,
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ''),
    apiKey: row.api_key,
    protocols: new Set(row.protocols),
    priority: row.priority,
    weight: row.weight,
  };
}

/** The protocol a request can be converted to for a channel that does not speak its own. */
const CONVERTIBLE: Readonly<Partial<Record<Protocol, Protocol>>> = { responses: 'chat', chat: 'responses' };

/**
 * The channels to try for a request, in order: highest priority first; among equal
 * priorities a weighted random order, so weight 3 is first three times as often as weight 1.
 * A channel that speaks only the other of chat completions and Responses serves the request
 * by conversion.
 */
export function routesFor(model: Model, protocol: Protocol, random: () => number = Math.random): Route[] {
  const usable: Route[] = [];
  for (const channel of model.channels) {
    const other = CONVERTIBLE[protocol];
    if (channel.protocols.has(protocol)) usable.push({ channel, upstream: protocol });
    else if (other && channel.protocols.has(other)) usable.push({ channel, upstream: other });
  }
  const ordered: Route[] = [];
  for (let i = 0; i < usable.length; ) {
    let j = i;
    while (j < usable.length && usable[j]!.channel.priority === usable[i]!.channel.priority) j++;
    const tier = usable.slice(i, j);
    while (tier.length) {
      let pick = random() * tier.reduce((sum, r) => sum + r.channel.weight, 0);
      let k = 0;
      while (k < tier.length - 1 && (pick -= tier[k]!.channel.weight) >= 0) k++;
      ordered.push(tier.splice(k, 1)[0]!);
    }
    i = j;
  }
  return ordered;
}
