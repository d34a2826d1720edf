import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashSecret } from '../../src/auth/secrets.ts';
import type { Db } from '../../src/db/connection.ts';
import { HttpError } from '../../src/errors/http-error.ts';
import { newRelayKey, RelayKeys } from '../../src/relay/keys.ts';
import type { KeyRow } from '../../src/relay/repo.ts';

/** A database holding one key row, counting the lookups it answers. */
function oneKey(key: string) {
  const row: KeyRow = {
    id: 'k1',
    key_hash: hashSecret(key),
    models: ['*'],
    account_id: null,
    disabled_at: null,
    deleted_at: null,
    expires_at: null,
    rpm: null,
    tpm: null,
    budget_nanos: null,
    budget_currency: null,
    budget_period: null,
    site_id: null,
    group_name: 'default',
    group_models: ['*'],
    group_rpm: null,
    group_tpm: null,
  };
  const db = {
    lookups: 0,
    disabled: false,
    async oneOrNone(_query: unknown, { keyHash }: { keyHash: Buffer }) {
      db.lookups++;
      if (!keyHash.equals(row.key_hash)) return null;
      return { ...row, disabled_at: db.disabled ? new Date() : null };
    },
  };
  return db;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => assert.fail('the key was accepted'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof HttpError);
  assert.equal(err.code, 'invalid_api_key');
  return err.message;
}

// The digest of a key that passed is remembered (keys.ts): it must never let anything
// through that the row, looked up by digest, would refuse.
test('a remembered key is still decided by its row, and other keys are not taken for it', async () => {
  const key = newRelayKey();
  const db = oneKey(key);
  const keys = new RelayKeys(db as unknown as Db, { maxAgeMs: 100 });
  assert.equal((await keys.authenticate(`Bearer ${key}`)).id, 'k1');
  assert.equal((await keys.authenticate(`Bearer ${key}`)).id, 'k1');
  assert.equal(db.lookups, 1, 'served from the row cache');
  // One character off: a different key, hashed and looked up by its own digest.
  const other = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
  assert.match(await refusal(keys.authenticate(`Bearer ${other}`)), /Incorrect API key/);
  db.disabled = true;
  await sleep(150);
  assert.match(await refusal(keys.authenticate(`Bearer ${key}`)), /disabled/);
  db.disabled = false;
  await sleep(150);
  assert.equal((await keys.authenticate(`Bearer ${key}`)).id, 'k1');
});
