import type { CredentialKind, Scope } from './scopes.ts';

/** A browser or CLI session: acts as its account, with every scope on the account's sites. */
export interface SessionPrincipal {
  kind: 'session';
  sessionId: string;
  accountId: string;
  admin: boolean;
}

/** A scoped API credential: bound to one site, never more than its scopes. */
export interface CredentialPrincipal {
  kind: 'credential';
  credentialId: string;
  accountId: string;
  siteId: string;
  credentialKind: CredentialKind;
  scopes: ReadonlySet<Scope>;
  /** Limits set on the credential's site; null follows the server default. */
  limits: { credentialRequestsPerMin: number | null; ingestRecordsPerMin: number | null };
}

export type Principal = SessionPrincipal | CredentialPrincipal;
