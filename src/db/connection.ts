import pgPromise from 'pg-promise';
import type { IDatabase, IMain } from 'pg-promise';

/** The pg-promise root: one per process, as pg-promise requires. */
// noWarnings: tests (and `radar up`'s migrate-then-serve) open and end several pools on the
// same server in one process, which pg-promise would otherwise report as a leak.
export const pgp: IMain = pgPromise({ noWarnings: true });

// bigint (int8) columns hold minor-unit amounts up to 10^12 and counts: both fit a JS number
// exactly, so parse them as numbers instead of pg's default strings.
pgp.pg.types.setTypeParser(20, (v: string) => Number(v));
// numeric: summary values and sums of amounts; all stay below 2^53 by the spec's limits.
pgp.pg.types.setTypeParser(1700, (v: string) => Number(v));

export type Db = IDatabase<object>;

export interface DbOptions {
  url: string;
  poolSize: number;
  applicationName: string;
  /** How long opening a connection may take; tools and tests wait longer than the servers. */
  connectTimeoutMs?: number;
}

export function createDb(opts: DbOptions): Db {
  return pgp({
    connectionString: opts.url,
    max: opts.poolSize,
    application_name: opts.applicationName,
    // Servers pass DATABASE_CONNECT_TIMEOUT_MS (3 s) so the front door answers 503 within its
    // wait when Postgres hangs; a refused connection fails at once either way. Tools and tests
    // wait longer: on a loaded machine a fresh connection can take more than 3 s.
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 15_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
  });
}
