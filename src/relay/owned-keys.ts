import { hashSecret } from '../auth/secrets.ts';
import type { Db } from '../db/connection.ts';
import { HttpError } from '../errors/http-error.ts';
import { findSite } from '../sites/repo.ts';
import { newRelayKey } from './keys.ts';
import { fromNanos } from './money.ts';
import { findKeyOfAccount, groupOfAccount, insertKey, updateKey, type KeySettings, type OwnKeyRow } from './repo.ts';
import type { z } from 'zod';
import type { KeyCreate, KeyPatch, RelayKeyAnswer } from './schemas.ts';

/**
 * Creates a key for an account. Its models must lie inside the account's group, so a key
 * never lists a model its owner could not call; when the group later shrinks, the key loses
 * those models at once (see `allowedModels`). Returns the row and the key, shown once.
 */
export async function createAccountKey(
  db: Db,
  accountId: string,
  k: KeyCreate,
): Promise<{ row: OwnKeyRow; key: string }> {
  const group = await groupOfAccount(db, accountId);
  if (!group) throw new HttpError('unauthenticated', { detail: 'account no longer exists' });
  if (!group.models.includes('*') && !k.models.includes('*')) {
    const allowed = new Set(group.models);
    const errors = k.models.flatMap((m, i) =>
      allowed.has(m)
        ? []
        : [{ path: `/models/${i}`, message: `the model '${m}' is not in your group '${group.name}'` }],
    );
    if (errors.length) throw new HttpError('validation_failed', { errors });
  }
  const settings = settingsOf(k);
  await checkSite(db, accountId, settings.siteId);
  const key = newRelayKey();
  const row = await insertKey(db, {
    ...settings,
    name: k.name,
    models: k.models,
    accountId,
    group: null,
    keyHash: hashSecret(key),
    prefix: key.slice(0, 10),
  });
  return { row, key };
}

/** Changes what `patch` names on one of the account's keys; null when the account has no such key. */
export async function updateAccountKey(
  db: Db,
  accountId: string,
  id: string,
  patch: KeyPatch,
): Promise<OwnKeyRow | null> {
  const row = await findKeyOfAccount(db, accountId, id);
  if (!row) return null;
  const current = presentKey(row);
  const merged = {
    requestsPerMinute: patch.requestsPerMinute !== undefined ? patch.requestsPerMinute : current.requestsPerMinute,
    tokensPerMinute: patch.tokensPerMinute !== undefined ? patch.tokensPerMinute : current.tokensPerMinute,
    budget:
      patch.budget !== undefined
        ? patch.budget
        : row.budget_nanos === null
          ? null
          : { amount: row.budget_nanos, currency: row.budget_currency!, period: row.budget_period! },
    expiresAt: patch.expiresAt !== undefined ? patch.expiresAt : current.expiresAt,
    siteId: patch.siteId !== undefined ? patch.siteId : current.siteId,
  };
  const settings = settingsOf(merged);
  if (patch.siteId) await checkSite(db, accountId, patch.siteId);
  return updateKey(db, accountId, id, {
    ...settings,
    name: patch.name ?? row.name,
    disabled: patch.disabled ?? row.disabled_at !== null,
  });
}

export function settingsOf(
  k: Pick<KeyCreate, 'requestsPerMinute' | 'tokensPerMinute' | 'budget' | 'expiresAt' | 'siteId'>,
): KeySettings {
  return {
    rpm: k.requestsPerMinute,
    tpm: k.tokensPerMinute,
    budgetNanos: k.budget?.amount ?? null,
    budgetCurrency: k.budget?.currency ?? null,
    budgetPeriod: k.budget?.period ?? null,
    expiresAt: k.expiresAt,
    siteId: k.siteId,
  };
}

async function checkSite(db: Db, accountId: string, siteId: string | null): Promise<void> {
  if (siteId === null) return;
  const site = await findSite(db, siteId);
  if (!site || site.account_id !== accountId)
    throw new HttpError('validation_failed', { errors: [{ path: '/siteId', message: 'not one of your sites' }] });
}

export function presentKey(k: OwnKeyRow): z.input<typeof RelayKeyAnswer> {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    models: k.models,
    requestsPerMinute: k.rpm,
    tokensPerMinute: k.tpm,
    budget:
      k.budget_nanos === null
        ? null
        : { amount: fromNanos(k.budget_nanos), currency: k.budget_currency!, period: k.budget_period! },
    expiresAt: k.expires_at?.toISOString() ?? null,
    siteId: k.site_id,
    createdAt: k.created_at.toISOString(),
    disabledAt: k.disabled_at?.toISOString() ?? null,
  };
}
