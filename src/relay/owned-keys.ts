import { hashSecret } from '../auth/secrets.ts';
import type { Db } from '../db/connection.ts';
import { HttpError } from '../errors/http-error.ts';
import { newRelayKey } from './keys.ts';
import { groupOfAccount, insertKey, type OwnKeyRow } from './repo.ts';

/**
 * Creates a key for an account. Its models must lie inside the account's group, so a key
 * never lists a model its owner could not call; when the group later shrinks, the key loses
 * those models at once (see `allowedModels`). Returns the row and the key, shown once.
 */
export async function createAccountKey(db: Db, accountId: string, k: { name: string; models: readonly string[] }): Promise<{ row: OwnKeyRow; key: string }> {
  const group = await groupOfAccount(db, accountId);
  if (!group) throw new HttpError('unauthenticated', { detail: 'account no longer exists' });
  if (!group.models.includes('*') && !k.models.includes('*')) {
    const allowed = new Set(group.models);
    const errors = k.models.flatMap((m, i) => (allowed.has(m) ? [] : [{ path: `/models/${i}`, message: `the model '${m}' is not in your group '${group.name}'` }]));
    if (errors.length) throw new HttpError('validation_failed', { errors });
  }
  const key = newRelayKey();
  const row = await insertKey(db, { name: k.name, models: k.models, accountId, group: null, keyHash: hashSecret(key), prefix: key.slice(0, 10) });
  return { row, key };
}

export function presentKey(k: OwnKeyRow) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    models: k.models,
    createdAt: k.created_at.toISOString(),
    disabledAt: k.disabled_at?.toISOString() ?? null,
  };
}
