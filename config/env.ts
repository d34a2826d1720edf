import { z } from 'zod';
import { ConfigError } from '../src/errors/config-error.ts';
import { isTimeZone } from '../src/shared/time-zone.ts';

// Env values are strings; '0'/'1'/'true'/'false' become real booleans here so no
// module ever compares against a string flag.
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');

const url = (protocols: readonly string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a ${protocols.join(' or ')} URL`,
  );

/** The one description of Radar's configuration: every variable, its type and its default. */
export const ConfigSchema = z
  .object({
    DATABASE_URL: url(['postgres:', 'postgresql:']).default('postgres://postgres@127.0.0.1:5432/radar'),
    REDIS_URL: url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    /** The origin browsers must send on mutating session requests. @defaultValue http://HOST:PORT */
    PUBLIC_ORIGIN: url(['http:', 'https:']).optional(),
    RADAR_TZ: z.string().refine(isTimeZone, 'must be an IANA time zone').default('Asia/Shanghai'),
    INGEST_SYNC_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
    GEO_AUDIT_ALLOW_PRIVATE_HOSTS: flag.default(false),
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
    /** Period of the rollup sweep job scheduler, which folds in changes whose rollup job was lost. */
    ROLLUP_SWEEP_EVERY_MS: z.coerce.number().int().min(1000).max(86_400_000).default(30_000),
    /** How long an export's file is kept after it is made; then it is deleted (README "Exports"). */
    EXPORT_TTL_HOURS: z.coerce.number().int().min(1).max(720).default(24),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Key prefix of every BullMQ queue, so several Radars (or test runs) can share one Redis. */
    QUEUE_PREFIX: z
      .string()
      .regex(/^[a-zA-Z0-9_.-]{1,64}$/, 'letters, digits, _ . - only')
      .default('radar'),
    /** How long graceful shutdown may take before in-flight work is abandoned. */
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
    /** Seconds a browser session made by login lasts. */
    SESSION_TTL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 365)
      .default(168),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
    /** How long the front door and workers wait to open a PostgreSQL connection before failing. */
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(3000),
    /**
     * Server-wide defaults of the limits (token buckets in Redis; 0 = unlimited), for sites and
     * relay keys that set none of their own. Off by default: the old 6,000 requests and 600,000
     * records a minute were far below what one front door carries (README "Limits").
     */
    RATE_LIMIT_CREDENTIAL_PER_MIN: z.coerce.number().int().min(0).default(0),
    /** Requests per minute one relay key may make. */
    RATE_LIMIT_RELAY_KEY_PER_MIN: z.coerce.number().int().min(0).default(0),
    /** Records per minute one site may ingest, over all resources. */
    INGEST_QUOTA_RECORDS_PER_MIN: z.coerce.number().int().min(0).default(0),
    /** A request body must arrive whole within this time, else 408 (slow or stalled uploads). */
    BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
    /** When set, GET /metrics requires `Authorization: Bearer <METRICS_TOKEN>`. */
    METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
    /**
     * Tests only: every JSON answer is checked against its route's declared response, and one
     * that does not match becomes a 500 `response_contract_violation` (logged as an error).
     */
    RESPONSE_CONTRACT_CHECK: flag.default(false),
  })
  .transform((c) => ({ ...c, PUBLIC_ORIGIN: c.PUBLIC_ORIGIN ?? `http://${c.HOST}:${c.PORT}` }));

export type Config = z.output<typeof ConfigSchema>;

/**
 * Parses the environment. Empty strings count as unset, so `PORT=` in a .env file
 * falls back to the default instead of failing as a non-number.
 */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  // PUBLIC_ORIGIN is compared with the browser's Origin header, which never has a path.
  return { ...parsed.data, PUBLIC_ORIGIN: new URL(parsed.data.PUBLIC_ORIGIN).origin };
}

/** Reads `.env` (when present) under the real environment, then parses. */
export function loadConfig(): Config {
  try {
    process.loadEnvFile('.env');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return parseConfig(process.env);
}
