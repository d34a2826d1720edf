import type { z } from 'zod';
import type { Db } from '../db/connection.ts';
import { pgp } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';
import type { ModelKind, Protocol } from './protocol.ts';
import type { UsageRowSchema } from './usage-job.ts';

const q = {
  channelInsert: sqlFile('relay/channel-insert.sql'),
  channelListEnabled: sqlFile('relay/channel-list-enabled.sql'),
  modelUpsert: sqlFile('relay/model-upsert.sql'),
  modelList: sqlFile('relay/model-list.sql'),
  modelCatalog: sqlFile('relay/model-catalog.sql'),
  priceInsert: sqlFile('relay/price-insert.sql'),
  priceListCurrent: sqlFile('relay/price-list-current.sql'),
  priceHistory: sqlFile('relay/price-history.sql'),
  channelList: sqlFile('relay/channel-list.sql'),
  keyInsert: sqlFile('relay/key-insert.sql'),
  keyFindByHash: sqlFile('relay/key-find-by-hash.sql'),
  keyDisable: sqlFile('relay/key-disable.sql'),
  keyListOfAccount: sqlFile('relay/key-list-of-account.sql'),
  keyFindOfAccount: sqlFile('relay/key-find-of-account.sql'),
  keyUpdate: sqlFile('relay/key-update.sql'),
  spendSince: sqlFile('relay/spend-since.sql'),
  keyDelete: sqlFile('relay/key-delete.sql'),
  groupUpsert: sqlFile('relay/group-upsert.sql'),
  groupList: sqlFile('relay/group-list.sql'),
  groupOfAccount: sqlFile('relay/group-of-account.sql'),
  accountSetGroup: sqlFile('relay/account-set-group.sql'),
};

export interface ChannelRow {
  id: string;
  name: string;
  base_url: string;
  api_key: string | null;
  models: string[];
  protocols: Protocol[];
  priority: number;
  weight: number;
  created_at: Date;
}

export interface ModelRow {
  id: string;
  efforts: string[];
  kind: ModelKind;
  allow_unpriced: boolean;
}

export interface PriceRow {
  model: string;
  effective_at: Date;
  currency: string;
  input_nanos: number;
  cached_input_nanos: number;
  output_nanos: number;
}

/** A key as authentication sees it, with the group it answers to. */
export interface KeyRow {
  id: string;
  key_hash: Buffer;
  models: string[];
  account_id: string | null;
  disabled_at: Date | null;
  deleted_at: Date | null;
  expires_at: Date | null;
  rpm: number | null;
  tpm: number | null;
  budget_nanos: number | null;
  budget_currency: string | null;
  budget_period: BudgetPeriod | null;
  site_id: string | null;
  group_name: string;
  group_models: string[];
  group_rpm: number | null;
  group_tpm: number | null;
}

export type BudgetPeriod = 'day' | 'month' | 'total';

/** What an account may set on its key. */
export interface KeySettings {
  rpm: number | null;
  tpm: number | null;
  budgetNanos: number | null;
  budgetCurrency: string | null;
  budgetPeriod: BudgetPeriod | null;
  expiresAt: string | null;
  siteId: string | null;
}

/** A key as its owner sees it. */
export interface OwnKeyRow {
  id: string;
  name: string;
  prefix: string;
  models: string[];
  created_at: Date;
  disabled_at: Date | null;
  rpm: number | null;
  tpm: number | null;
  budget_nanos: number | null;
  budget_currency: string | null;
  budget_period: BudgetPeriod | null;
  expires_at: Date | null;
  site_id: string | null;
}

export interface GroupRow {
  name: string;
  models: string[];
  rpm: number | null;
  tpm: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewChannel {
  name: string;
  baseUrl: string;
  apiKey: string | null;
  models: readonly string[];
  protocols: readonly Protocol[];
  priority: number;
  weight: number;
}

export function insertChannel(db: Db, c: NewChannel): Promise<{ id: string }> {
  return db.one<{ id: string }>(q.channelInsert, c);
}

/** Every channel for the admin, without upstream keys. */
export function listChannels(db: Db): Promise<(Omit<ChannelRow, 'api_key'> & { enabled: boolean })[]> {
  return db.any(q.channelList);
}

export function listEnabledChannels(db: Db): Promise<ChannelRow[]> {
  return db.any<ChannelRow>(q.channelListEnabled);
}

export function upsertModel(
  db: Db,
  m: { id: string; efforts: readonly string[]; kind: ModelKind; allowUnpriced: boolean },
): Promise<ModelRow> {
  return db.one<ModelRow>(q.modelUpsert, m);
}

/** Every model a channel serves or a setting names, with its settings (null when unset). */
export function modelCatalog(
  db: Db,
): Promise<{ id: string; efforts: string[] | null; kind: ModelKind | null; allow_unpriced: boolean }[]> {
  return db.any(q.modelCatalog);
}

export function insertPrice(
  db: Db,
  p: {
    model: string;
    currency: string;
    inputNanos: number;
    cachedInputNanos: number;
    outputNanos: number;
    effectiveAt: string | null;
  },
): Promise<PriceRow> {
  return db.one<PriceRow>(q.priceInsert, p);
}

/** Each model's price in force now and those that take effect later, newest first per model. */
export function listCurrentPrices(db: Db): Promise<PriceRow[]> {
  return db.any<PriceRow>(q.priceListCurrent);
}

export function priceHistory(db: Db, model: string | null): Promise<PriceRow[]> {
  return db.any<PriceRow>(q.priceHistory, { model });
}

export function listModels(db: Db): Promise<ModelRow[]> {
  return db.any<ModelRow>(q.modelList);
}

/** A key without limits, budget, expiry or site. */
export const NO_KEY_SETTINGS: KeySettings = {
  rpm: null,
  tpm: null,
  budgetNanos: null,
  budgetCurrency: null,
  budgetPeriod: null,
  expiresAt: null,
  siteId: null,
};

export interface NewKey extends KeySettings {
  name: string;
  keyHash: Buffer;
  prefix: string;
  models: readonly string[];
  /** The owner; a key without one (made with the CLI) names its `group` instead. */
  accountId: string | null;
  group: string | null;
}

export function insertKey(db: Db, k: NewKey): Promise<OwnKeyRow> {
  return db.one<OwnKeyRow>(q.keyInsert, k);
}

export function listKeysOfAccount(db: Db, accountId: string): Promise<OwnKeyRow[]> {
  return db.any<OwnKeyRow>(q.keyListOfAccount, { accountId });
}

export function findKeyOfAccount(db: Db, accountId: string, id: string): Promise<OwnKeyRow | null> {
  return db.oneOrNone<OwnKeyRow>(q.keyFindOfAccount, { accountId, id });
}

export function updateKey(
  db: Db,
  accountId: string,
  id: string,
  k: KeySettings & { name: string; disabled: boolean },
): Promise<OwnKeyRow | null> {
  return db.oneOrNone<OwnKeyRow>(q.keyUpdate, { ...k, accountId, id });
}

/** Nanos a key's calls cost in `currency` since `since`. */
export async function spendSince(db: Db, keyId: string, currency: string, since: Date): Promise<number> {
  return (await db.one<{ nanos: number }>(q.spendSince, { keyId, currency, since })).nanos;
}

export function deleteKey(db: Db, accountId: string, id: string): Promise<OwnKeyRow | null> {
  return db.oneOrNone<OwnKeyRow>(q.keyDelete, { accountId, id });
}

export function upsertGroup(
  db: Db,
  g: { name: string; models: readonly string[]; rpm: number | null; tpm: number | null },
): Promise<GroupRow> {
  return db.one<GroupRow>(q.groupUpsert, g);
}

export function listGroups(db: Db): Promise<GroupRow[]> {
  return db.any<GroupRow>(q.groupList);
}

export function groupOfAccount(db: Db, accountId: string): Promise<GroupRow | null> {
  return db.oneOrNone<GroupRow>(q.groupOfAccount, { accountId });
}

export function setAccountGroup(
  db: Db,
  accountId: string,
  group: string,
): Promise<{ id: string; group: string } | null> {
  return db.oneOrNone(q.accountSetGroup, { accountId, group });
}

export function findKeyByHash(db: Db, keyHash: Buffer): Promise<KeyRow | null> {
  return db.oneOrNone<KeyRow>(q.keyFindByHash, { keyHash });
}

export function disableKey(db: Db, id: string): Promise<{ id: string; disabled_at: Date } | null> {
  return db.oneOrNone(q.keyDisable, { id });
}

/** One metered call, as the front door reports it and the usage worker stores it. */
export type UsageRow = z.output<typeof UsageRowSchema>;

const usageColumns = new pgp.helpers.ColumnSet<UsageRow>(
  [
    'id',
    'at',
    'request_id',
    'key_id',
    'model',
    'channel_id',
    'endpoint',
    'stream',
    'status',
    'input_tokens',
    'output_tokens',
    'cached_tokens',
    'reasoning_tokens',
    'ttfb_ms',
    'duration_ms',
    'cost_nanos',
    'currency',
    'unpriced',
    'site_id',
    'customer',
  ],
  { table: 'relay_usage' },
);

/**
 * Stores a batch of usage rows in one statement; rows already stored (a retried job) are
 * skipped, and so not added to customer_economics again (its trigger sees inserted rows only).
 */
export async function insertUsage(db: Db, rows: readonly UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.none(`${pgp.helpers.insert(rows as UsageRow[], usageColumns)} ON CONFLICT (id) DO NOTHING`);
}
