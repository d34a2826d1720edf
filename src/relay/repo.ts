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
  keyInsert: sqlFile('relay/key-insert.sql'),
  keyFindByHash: sqlFile('relay/key-find-by-hash.sql'),
  keyDisable: sqlFile('relay/key-disable.sql'),
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
}

export interface KeyRow {
  id: string;
  key_hash: Buffer;
  models: string[];
  key_group: string;
  disabled_at: Date | null;
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

export function listEnabledChannels(db: Db): Promise<ChannelRow[]> {
  return db.any<ChannelRow>(q.channelListEnabled);
}

export function upsertModel(db: Db, m: ModelRow): Promise<ModelRow> {
  return db.one<ModelRow>(q.modelUpsert, m);
}

export function listModels(db: Db): Promise<ModelRow[]> {
  return db.any<ModelRow>(q.modelList);
}

export function insertKey(db: Db, k: { name: string; keyHash: Buffer; prefix: string; models: readonly string[]; group: string }): Promise<{ id: string }> {
  return db.one<{ id: string }>(q.keyInsert, k);
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
  ['id', 'at', 'request_id', 'key_id', 'model', 'channel_id', 'endpoint', 'stream', 'status',
    'input_tokens', 'output_tokens', 'cached_tokens', 'reasoning_tokens', 'ttfb_ms', 'duration_ms'],
  { table: 'relay_usage' },
);

/** Stores a batch of usage rows in one statement; rows already stored (a retried job) are skipped. */
export async function insertUsage(db: Db, rows: readonly UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.none(pgp.helpers.insert(rows as UsageRow[], usageColumns) + ' ON CONFLICT (id) DO NOTHING');
}
