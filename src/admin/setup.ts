import { adminExists } from '../accounts/repo.ts';
import { hashSecret, newSecret } from '../auth/secrets.ts';
import type { Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';

const q = {
  insert: sqlFile('setup/insert.sql'),
  consume: sqlFile('setup/consume.sql'),
};

const SETUP_TTL_HOURS = 24;

/**
 * While no admin account exists, a new one-time link that creates one (`radar up` prints it).
 * The token travels in the fragment, so it never reaches a server log or a Referer header.
 */
export async function issueSetupLink(db: Db, publicOrigin: string): Promise<string | null> {
  if (await adminExists(db)) return null;
  const token = newSecret('');
  await db.none(q.insert, {
    tokenHash: hashSecret(token),
    expiresAt: new Date(Date.now() + SETUP_TTL_HOURS * 3_600_000),
  });
  return `${publicOrigin}/setup#token=${token}`;
}

/** Uses up every setup token if `token` is a live one; false when it is not. */
export async function consumeSetupToken(db: Pick<Db, 'any'>, token: string): Promise<boolean> {
  return (await db.any(q.consume, { tokenHash: hashSecret(token) })).length > 0;
}
