import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, chownSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from '../log.ts';
import { UsageError } from './command.ts';

/** Where `radar up` keeps the private PostgreSQL and Redis it starts. */
const HOME = path.resolve('.radar');
const PG_PORT = 54329;
const REDIS_PORT = 63799;

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
  const versions = readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0]!, 'bin') : null;
}

function run(cmd: string, args: string[], asUser: string | null): void {
  const [file, argv] = asUser ? ['runuser', ['-u', asUser, '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(file, argv, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.stdout || r.error?.message}`);
}

export interface LocalServices {
  env: Record<string, string>;
  stop(): void;
}

/**
 * For `radar up` on a fresh machine: when DATABASE_URL / REDIS_URL are unset and nothing
 * answers at the defaults, start private instances with data under `.radar/`. Explicit
 * URLs always win.
 */
export async function ensureLocalServices(env: NodeJS.ProcessEnv, log: Logger): Promise<LocalServices> {
  const out: Record<string, string> = {};
  const stops: Array<() => void> = [];
  if (!env.DATABASE_URL && !(await canConnect('127.0.0.1', 5432))) {
    const pg = startPostgres(log);
    out.DATABASE_URL = pg.url;
    stops.push(pg.stop);
  }
  if (!env.REDIS_URL && !(await canConnect('127.0.0.1', 6379))) {
    out.REDIS_URL = startRedis(log);
    stops.push(() => run(which('redis-cli') ?? 'redis-cli', ['-p', String(REDIS_PORT), 'shutdown', 'nosave'], null));
  }
  return {
    env: out,
    stop() {
      for (const s of stops) {
        try {
          s();
        } catch (err) {
          log.warn({ err }, 'stopping a private service failed');
        }
      }
    },
  };
}

function startPostgres(log: Logger): { url: string; stop: () => void } {
  const bin = pgBinDir();
  if (!bin) {
    throw new UsageError('nothing answers at 127.0.0.1:5432 and PostgreSQL is not installed. Install it (Debian/Ubuntu: apt-get install postgresql) or set DATABASE_URL.');
  }
  const data = path.join(HOME, 'pg');
  // initdb refuses to run as root; the cluster then belongs to the postgres user.
  const asUser = process.getuid?.() === 0 ? 'postgres' : null;
  if (!existsSync(path.join(data, 'PG_VERSION'))) {
    mkdirSync(data, { recursive: true, mode: 0o700 });
    if (asUser) chownPath(data, asUser);
    run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8'], asUser);
  }
  const socketDir = path.join(HOME, 'pg-socket');
  mkdirSync(socketDir, { recursive: true });
  if (asUser) chownPath(socketDir, asUser);
  log.info({ data, port: PG_PORT }, 'starting private PostgreSQL');
  run(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(data, 'server.log'), '-w', '-o', `-p ${PG_PORT} -k ${socketDir} -c listen_addresses=127.0.0.1`, 'start'], asUser);
  return {
    url: `postgres://postgres@127.0.0.1:${PG_PORT}/radar`,
    stop: () => run(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], asUser),
  };
}

function chownPath(p: string, user: string): void {
  const r = spawnSync('id', ['-u', user], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', user], { encoding: 'utf8' });
  if (r.status !== 0) throw new UsageError(`running as root needs a "${user}" user to own the private PostgreSQL (it comes with Debian's postgresql package)`);
  chownSync(HOME, Number(r.stdout), Number(g.stdout));
  chownSync(p, Number(r.stdout), Number(g.stdout));
}

function startRedis(log: Logger): string {
  const server = which('redis-server');
  if (!server) {
    throw new UsageError('nothing answers at 127.0.0.1:6379 and Redis is not installed. Install it (Debian/Ubuntu: apt-get install redis-server) or set REDIS_URL.');
  }
  const dir = path.join(HOME, 'redis');
  mkdirSync(dir, { recursive: true });
  // Append-only persistence: an acknowledged ingest job must survive a Redis restart.
  writeFileSync(path.join(dir, 'redis.conf'), [
    'bind 127.0.0.1', `port ${REDIS_PORT}`, `dir ${dir}`, 'appendonly yes', 'appendfsync everysec',
    'daemonize yes', `pidfile ${path.join(dir, 'redis.pid')}`, `logfile ${path.join(dir, 'redis.log')}`,
    'maxmemory-policy noeviction',
  ].join('\n') + '\n');
  log.info({ dir, port: REDIS_PORT }, 'starting private Redis');
  run(server, [path.join(dir, 'redis.conf')], null);
  return `redis://127.0.0.1:${REDIS_PORT}`;
}
