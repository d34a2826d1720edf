import type { Account } from './schemas.ts';
import type { Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';

const q = {
  insert: sqlFile('accounts/insert.sql'),
  findByEmail: sqlFile('accounts/find-by-email.sql'),
  findById: sqlFile('accounts/find-by-id.sql'),
  list: sqlFile('accounts/list.sql'),
  setDisabled: sqlFile('accounts/set-disabled.sql'),
  adminExists: sqlFile('accounts/admin-exists.sql'),
};

export interface AccountRow {
  id: string;
  email: string;
  name: string | null;
  admin: boolean;
  created_at: Date;
  disabled_at: Date | null;
}

export function insertAccount(
  db: Pick<Db, 'one'>,
  a: { email: string; name: string | null; passwordHash: string | null; admin: boolean },
): Promise<AccountRow> {
  return db.one<AccountRow>(q.insert, a);
}

export function findAccountByEmail(
  db: Db,
  email: string,
): Promise<(AccountRow & { password_hash: string | null }) | null> {
  return db.oneOrNone(q.findByEmail, { email });
}

export function findAccount(db: Db, id: string): Promise<AccountRow | null> {
  return db.oneOrNone<AccountRow>(q.findById, { id });
}

export function listAccounts(db: Db): Promise<(AccountRow & { relay_group: string })[]> {
  return db.any(q.list);
}

export function setAccountDisabled(db: Db, id: string, disabled: boolean): Promise<AccountRow | null> {
  return db.oneOrNone<AccountRow>(q.setDisabled, { id, disabled });
}

export async function adminExists(db: Pick<Db, 'one'>): Promise<boolean> {
  return (await db.one<{ exists: boolean }>(q.adminExists)).exists;
}

export function presentAccount(a: AccountRow): Account {
  return {
    id: a.id,
    email: a.email,
    name: a.name,
    admin: a.admin,
    createdAt: a.created_at.toISOString(),
    disabledAt: a.disabled_at?.toISOString() ?? null,
  };
}
