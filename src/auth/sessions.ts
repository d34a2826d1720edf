import type { Db } from '../db/connection.ts';
import { insertSession } from './repo.ts';
import { hashSecret, newSecret } from './secrets.ts';

/** Opens a session for an account; the token is returned once and stored only as a digest. */
export async function openSession(
  db: Db,
  accountId: string,
  ttlHours: number,
): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecret('');
  const expiresAt = new Date(Date.now() + ttlHours * 3_600_000);
  await insertSession(db, accountId, hashSecret(token), expiresAt);
  return { token, expiresAt };
}
