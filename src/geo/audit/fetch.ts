import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { AddressRefusedError } from '../../errors/address-refused-error.ts';
import { refusalOf } from './address.ts';
import { AUDIT_LIMITS } from './limits.ts';

/** Resolves a host name to every address it has, as dns.lookup with `all` does. */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface GuardOptions {
  /** Skips the address check: GEO_AUDIT_ALLOW_PRIVATE_HOSTS, for tests on loopback servers. */
  allowPrivate: boolean;
  /** @defaultValue the system resolver (dns.lookup) */
  resolve?: Resolver;
  /**
   * Exact addresses to accept although their range is refused. Tests use it to stand a
   * "public" server on a loopback address and prove that a redirect from it is still checked.
   */
  trusted?: ReadonlySet<string>;
}

export interface FetchedDocument {
  /** The URL the document was read from, after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** True when the document was longer than the byte limit and was cut there. */
  truncated: boolean;
  redirects: number;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Fetches documents for an audit without letting a URL reach the service's own network. The
 * check runs where the connection is made: the connector's DNS lookup resolves the host,
 * drops every refused address and hands the socket only what passed, so the address checked
 * is the address connected to and a rebinding DNS answer cannot slip in between. IP literals
 * never reach a lookup and are checked before the request. Every redirect hop goes through
 * the same path, and each new connection is checked again.
 */
export class GuardedFetcher {
  private readonly agent: Agent;
  private readonly resolve: Resolver;

  constructor(private readonly opts: GuardOptions) {
    this.resolve = opts.resolve ?? ((host) => dnsLookup(host, { all: true, verbatim: true }));
    this.agent = new Agent({
      connect: {
        lookup: (host: string, options: LookupOptions, cb: LookupCallback) => this.lookup(host, options, cb),
        timeout: AUDIT_LIMITS.totalMs,
      },
      headersTimeout: AUDIT_LIMITS.totalMs,
      bodyTimeout: AUDIT_LIMITS.totalMs,
      connections: 4,
    });
  }

  /**
   * GETs `url`, following up to maxRedirects redirects, reading at most maxBytes of the final
   * body. Throws AddressRefusedError for a refused hop, Error for anything else that keeps the
   * document from being read; an HTTP error status is a document like any other.
   */
  async get(url: string, signal: AbortSignal): Promise<FetchedDocument> {
    let current = new URL(url);
    for (let redirects = 0; ; redirects++) {
      this.checkTarget(current);
      const res = await request(current, {
        method: 'GET',
        dispatcher: this.agent,
        signal,
        headers: {
          'user-agent': 'RadarAudit/1.0 (GEO page audit)',
          accept: 'text/html,application/xhtml+xml,text/plain,application/xml;q=0.9,*/*;q=0.5',
          'accept-encoding': 'identity',
        },
      });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        await res.body.dump();
        if (redirects >= AUDIT_LIMITS.maxRedirects)
          throw new Error(`more than ${AUDIT_LIMITS.maxRedirects} redirects from ${url}`);
        current = new URL(location, current);
        continue;
      }
      const { body, truncated } = await readCapped(res.body, AUDIT_LIMITS.maxBytes);
      return {
        url: current.href,
        status: res.statusCode,
        contentType: String(res.headers['content-type'] ?? ''),
        body,
        truncated,
        redirects,
      };
    }
  }

  close(): Promise<void> {
    return this.agent.destroy();
  }

  private checkTarget(u: URL): void {
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new AddressRefusedError(`${u.protocol} URLs are not fetched; only http and https`);
    const literal = u.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal)) this.checkAddress(literal, literal);
  }

  private checkAddress(address: string, host: string): void {
    if (this.opts.allowPrivate || this.opts.trusted?.has(address)) return;
    const refusal = refusalOf(address);
    if (refusal)
      throw new AddressRefusedError(
        host === address ? `refused: ${refusal}` : `refused: ${host} resolves to ${address}; ${refusal}`,
      );
  }

  /** net.connect's lookup: resolve, keep only allowed addresses, answer in the shape asked for. */
  private lookup(host: string, options: { all?: boolean }, cb: LookupCallback): void {
    this.allowedAddresses(host).then(
      (allowed) => (options.all ? cb(null, allowed) : cb(null, allowed[0]!.address, allowed[0]!.family)),
      (err: Error) => cb(err, ''),
    );
  }

  private async allowedAddresses(host: string): Promise<LookupAddress[]> {
    const found = await this.resolve(host);
    if (found.length === 0) throw new Error(`${host} has no address`);
    let refused: unknown = null;
    const allowed = found.filter((a) => {
      try {
        this.checkAddress(a.address, host);
        return true;
      } catch (err) {
        refused ??= err;
        return false;
      }
    });
    if (allowed.length === 0) throw refused;
    return allowed;
  }
}

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): void },
  max: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > max) {
      parts.push(chunk.subarray(0, max - size));
      body.destroy();
      return { body: Buffer.concat(parts), truncated: true };
    }
    parts.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(parts), truncated: false };
}

/** The refusal behind an error thrown by a fetch, wherever undici wrapped it. */
export function refusalIn(err: unknown): AddressRefusedError | null {
  for (let e = err; e instanceof Error; e = e.cause) if (e instanceof AddressRefusedError) return e;
  return null;
}
