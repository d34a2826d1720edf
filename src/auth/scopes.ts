// No imports: the console's scope picker reads these lists too, so they stay plain data.

/** Scopes a credential may read with (spec part 5). */
export const READ_SCOPES = [
  'account:read',
  'account:billing:read',
  'sites:read',
  'submissions:read',
  'referrals:read',
  'analytics:read',
  'customers:read',
  'events:read',
  'finance:read',
  'monitoring:read',
  'reports:read',
  'actions:read',
  'exports:read',
  'geo:read',
  'geo:evidence:read',
] as const;

export const MANAGE_SCOPES = [
  'sites:write',
  'credentials:manage',
  'exports:create',
  'geo:configure',
  'geo:manage',
  'geo:run',
] as const;

/** The eleven record families that can be ingested and read back. */
export const RESOURCES = [
  'customers',
  'events',
  'orders',
  'payments',
  'refunds',
  'subscriptions',
  'costs',
  'campaigns',
  'expenses',
  'observations',
  'summaries',
] as const;
export type Resource = (typeof RESOURCES)[number];

export const INGEST_SCOPES = ['ingest:receipt:read', ...RESOURCES.map((r) => `ingest:${r}:write` as const)] as const;

export const ALL_SCOPES = [...READ_SCOPES, ...MANAGE_SCOPES, ...INGEST_SCOPES] as const;
export type Scope = (typeof ALL_SCOPES)[number];
const SCOPE_SET: ReadonlySet<string> = new Set(ALL_SCOPES);
export const isScope = (s: string): s is Scope => SCOPE_SET.has(s);

export const CREDENTIAL_KINDS = ['read', 'ingest'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/**
 * Which scopes each credential kind may hold (CONTRACT §2): `read` holds read scopes and
 * `geo:run` (an audit reads a public page and changes nothing of the site's data);
 * `ingest` holds ingest scopes only. Every other manage scope is session-only.
 */
export const SCOPES_BY_KIND: Record<CredentialKind, ReadonlySet<Scope>> = {
  read: new Set<Scope>([...READ_SCOPES, 'geo:run']),
  ingest: new Set<Scope>(INGEST_SCOPES),
};

export function ingestScope(resource: Resource): Scope {
  return `ingest:${resource}:write`;
}
