import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, chownSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../log.ts';
import { UsageError } from '../errors/usage-error.ts';

/** Where `radar up` keeps the private PostgreSQL and Redis it starts. */
const HOME = path.resolve('.radar');
/** Where a private PostgreSQL lives when the postgres user cannot reach `.radar/`. */
const SHARED_HOME = '/var/lib/radar';
const PG_PORT = 54329;
const REDIS_PORT = 63799;
const execFileAsync = promisify(execFile);

export function canConnect(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function which(cmd: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** PostgreSQL's server binaries are off PATH on Debian; look where its packages put them. */
function pgBinDir(): string | null {
  const onPath = which('pg_ctl');
  if (onPath) return path.dirname(onPath);
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0]!, 'bin') : null;
}

/** Runs a server tool to completion without blocking the event loop (tests time answers meanwhile). */
async function run(cmd: string, args: string[], asUser: string | null): Promise<void> {
  const [file, argv] = asUser ? ['runuser', ['-u', asUser, '--', cmd, ...args]] : [cmd, args];
  try {
    // From / when switching user: initdb fails in a working directory its user cannot enter.
    await execFileAsync(file, argv, { encoding: 'utf8', cwd: asUser ? '/' : undefined });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${e.stderr || e.stdout || e.message}`);
  }
}

export interface LocalServices {
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * For `radar up` on a fresh machine: when DATABASE_URL / REDIS_URL are unset and nothing
 * answers at the defaults, start private instances with data under `.radar/`. Explicit
 * URLs always win.
 */
export async function ensureLocalServices(env: NodeJS.ProcessEnv, log: Logger): Promise<LocalServices> {
  const out: Record<string, string> = {};
  const stops: Array<() => Promise<void>> = [];
  if (!env.DATABASE_URL && !(await canConnect('127.0.0.1', 5432))) {
    const pg = await startPostgres(log);
    out.DATABASE_URL = pg.url;
    stops.push(pg.stop);
  }
  if (!env.REDIS_URL && !(await canConnect('127.0.0.1', 6379))) {
    out.REDIS_URL = await startRedis(log);
    stops.push(() => run(which('redis-cli') ?? 'redis-cli', ['-p', String(REDIS_PORT), 'shutdown', 'nosave'], null));
  }
  return {
    env: out,
    async stop() {
      for (const s of stops) {
        try {
          await s();
        } catch (err) {
          log.warn({ err }, 'stopping a private service failed');
        }
      }
    },
  };
}

async function startPostgres(log: Logger): Promise<{ url: string; stop: () => Promise<void> }> {
  const home = postgresHome(HOME);
  if (home !== HOME) {
    mkdirSync(path.dirname(home), { recursive: true, mode: 0o755 });
    log.warn(
      { data: path.join(home, 'pg'), checkout: path.dirname(HOME) },
      `the postgres user cannot enter this checkout, so the private PostgreSQL keeps its data in ${home} (one directory per checkout) instead of .radar/`,
    );
  }
  const pg = postgresServer({ data: path.join(home, 'pg'), socketDir: path.join(home, 'pg-socket'), port: PG_PORT });
  log.info({ data: pg.data, port: PG_PORT }, 'starting private PostgreSQL');
  await pg.start();
  return { url: pg.url('radar'), stop: () => pg.stop() };
}

/**
 * Where `radar up` keeps the private cluster of the checkout whose `.radar` is `radarHome`.
 * As root the cluster runs as `postgres`, which must reach it: a clone under /root or in a
 * `mktemp -d` folder is closed to that user, and opening it up would change permissions of
 * directories that are not ours. The cluster then lives in /var/lib/radar, in a directory
 * named after the checkout and keyed by its path, so each checkout keeps its own across runs.
 */
export function postgresHome(radarHome: string): string {
  if (process.getuid?.() !== 0) return radarHome;
  const checkout = path.dirname(radarHome);
  // access(2) as that user, which needs search permission on every directory of the path.
  if (spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', checkout], { cwd: '/' }).status === 0)
    return radarHome;
  const key = createHash('sha256').update(radarHome).digest('hex').slice(0, 12);
  return path.join(SHARED_HOME, `${path.basename(checkout)}-${key}`);
}

export interface PostgresServer {
  readonly data: string;
  readonly port: number;
  /** A connection URL for `database` on this server, as the `postgres` superuser. */
  url(database: string): string;
  /** Creates the cluster on first use, then starts it and waits until it accepts connections. */
  start(): Promise<void>;
  /** `fast` disconnects clients and shuts down cleanly; `immediate` is a crash (recovery on the next start). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
}

/**
 * A PostgreSQL server of its own from the installed binaries, trusting local connections:
 * `radar up`'s private database on a fresh machine, and the instances fault tests may stop.
 */
export function postgresServer(opts: { data: string; socketDir: string; port: number }): PostgresServer {
  const bin = pgBinDir();
  if (!bin) {
    throw new UsageError(
      `nothing answers at 127.0.0.1:5432 and PostgreSQL is not installed. Install it (Debian/Ubuntu: apt-get install postgresql) or set DATABASE_URL.`,
    );
  }
  // initdb refuses to run as root; the cluster then belongs to the postgres user.
  const asUser = process.getuid?.() === 0 ? 'postgres' : null;
  const ctl = (...args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', opts.data, ...args], asUser);
  return {
    data: opts.data,
    port: opts.port,
    url: (database) => `postgres://postgres@127.0.0.1:${opts.port}/${database}`,
    async start() {
      for (const dir of [opts.data, opts.socketDir]) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        if (asUser) chownToUser(dir, asUser);
      }
      if (!existsSync(path.join(opts.data, 'PG_VERSION'))) {
        await run(
          path.join(bin, 'initdb'),
          ['-D', opts.data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8'],
          asUser,
        );
      }
      await ctl(
        '-l',
        path.join(opts.data, 'server.log'),
        '-w',
        '-o',
        `-p ${opts.port} -k ${opts.socketDir} -c listen_addresses=127.0.0.1`,
        'start',
      );
    },
    async stop(mode = 'fast') {
      await ctl('-m', mode, '-w', 'stop');
    },
  };
}

/** Hands `dir` and its parent to `user`, so a server running as that user can reach it. */
function chownToUser(dir: string, user: string): void {
  const r = spawnSync('id', ['-u', user], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', user], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new UsageError(
      `running as root needs a "${user}" user to own the private PostgreSQL (it comes with Debian's postgresql package)`,
    );
  chownSync(path.dirname(dir), Number(r.stdout), Number(g.stdout));
  chownSync(dir, Number(r.stdout), Number(g.stdout));
}

async function startRedis(log: Logger): Promise<string> {
  const server = which('redis-server');
  if (!server) {
    throw new UsageError(
      'nothing answers at 127.0.0.1:6379 and Redis is not installed. Install it (Debian/Ubuntu: apt-get install redis-server) or set REDIS_URL.',
    );
  }
  const dir = path.join(HOME, 'redis');
  mkdirSync(dir, { recursive: true });
  // Append-only persistence: an acknowledged ingest job must survive a Redis restart.
  writeFileSync(
    path.join(dir, 'redis.conf'),
    `${[
      'bind 127.0.0.1',
      `port ${REDIS_PORT}`,
      `dir ${dir}`,
      'appendonly yes',
      'appendfsync everysec',
      'daemonize yes',
      `pidfile ${path.join(dir, 'redis.pid')}`,
      `logfile ${path.join(dir, 'redis.log')}`,
      'maxmemory-policy noeviction',
    ].join('\n')}\n`,
  );
  log.info({ dir, port: REDIS_PORT }, 'starting private Redis');
  await run(server, [path.join(dir, 'redis.conf')], null);
  return `redis://127.0.0.1:${REDIS_PORT}`;
}
