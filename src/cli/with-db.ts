import { loadConfig, type Config } from '../../config/env.ts';
import { createDb, type Db } from '../db/connection.ts';

/** Runs a one-shot command against the database and closes the pool afterwards. */
export async function withDb<T>(fn: (db: Db, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = createDb({ url: config.DATABASE_URL, poolSize: 2, applicationName: 'radar-cli' });
  try {
    return await fn(db, config);
  } finally {
    await db.$pool.end();
  }
}
