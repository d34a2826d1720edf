import type { Db } from '../db/connection.ts';
import { sqlFile } from '../db/sql-file.ts';

const q = {
  insert: sqlFile('accounts/insert.sql'),
  findByEmail: sqlFile('accounts/find-by-email.sql'),
  findById: sqlFile('accounts/find-by-id.sql'),
};

export interface AccountRow {
  id: string;
  email: string;
  name: string | null;
  admin: boolean;
  created_at: Date;
}

export function insertAccount(db: Db, a: { email: string; name: string | null; passwordHash: string | null; admin: boolean }): Promise<AccountRow> {
  return db.one<AccountRow>(q.insert, a);
}

export function findAccountByEmail(db: Db, email: string): Promise<(AccountRow & { password_hash: string | null }) | null> {
  return db.oneOrNone(q.findByEmail, { email });
}

export function findAccount(db: Db, id: string): Promise<AccountRow | null> {
  return db.oneOrNone<AccountRow>(q.findById, { id });
}

export function presentAccount(a: AccountRow) {
  return { id: a.id, email: a.email, name: a.name, admin: a.admin, createdAt: a.created_at.toISOString() };
}
