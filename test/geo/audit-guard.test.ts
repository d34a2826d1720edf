import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { after, before, test } from 'node:test';
import { AddressRefusedError } from '../../src/errors/address-refused-error.ts';
import { refusalOf } from '../../src/geo/audit/address.ts';
import { GuardedFetcher } from '../../src/geo/audit/fetch.ts';
import { html, redirect, startPages, type PageServer } from './pages.ts';
import { geoFixture, type GeoFixture } from './setup.ts';

// Real refusals: this app runs with GEO_AUDIT_ALLOW_PRIVATE_HOSTS off, as in production.
let fx: GeoFixture;
let secret: PageServer;
let publicSite: PageServer;

before(async () => {
  fx = await geoFixture({ env: { GEO_AUDIT_ALLOW_PRIVATE_HOSTS: '0' } });
  secret = await startPages({ '*': html('<html lang="en"><title>internal admin page</title></html>') });
  // Stands in for a public host: the tests' resolver maps public.example to it and trusts
  // exactly its address, so what it redirects to meets the real check.
  publicSite = await startPages(
    {
      '/hello': html('<html lang="en"><title>hello</title></html>'),
      '/to-loopback': (req, res) => redirect(`http://127.0.0.1:${secret.port}/secret`)(req, res),
      '/to-name': (req, res) => redirect(`http://internal.example:${secret.port}/secret`)(req, res),
      '/to-metadata': redirect('http://169.254.169.254/latest/meta-data/'),
      '/to-file': redirect('file:///etc/passwd'),
    },
    '127.0.0.2',
  );
});
after(async () => {
  await fx.app.close();
  await Promise.all([secret.close(), publicSite.close()]);
});

let n = 0;
async function refusedAudit(url: string): Promise<string> {
  const r = await fx.geo('POST', 'audits', { body: { url }, headers: { 'idempotency-key': `guard-key-${++n}` } });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.status, 'failed', r.text);
  assert.equal(r.body.score, 0);
  assert.equal(r.body.checks.length, 1);
  assert.equal(r.body.checks[0].id, 'page');
  return r.body.error;
}

test('an audit refuses loopback, private, link-local and IPv6 loopback addresses, and names resolving to them', async () => {
  assert.equal(await refusedAudit(`http://127.0.0.1:${secret.port}/`), 'refused: 127.0.0.1 is a loopback address');
  assert.equal(await refusedAudit('http://10.0.0.1/'), 'refused: 10.0.0.1 is a private address');
  assert.equal(
    await refusedAudit('http://169.254.169.254/latest/meta-data/'),
    'refused: 169.254.169.254 is a link-local address',
  );
  assert.equal(await refusedAudit(`http://[::1]:${secret.port}/`), 'refused: ::1 is a loopback address');
  assert.equal(
    await refusedAudit(`http://[::ffff:127.0.0.1]:${secret.port}/`),
    'refused: 127.0.0.1 is a loopback address',
  );
  assert.match(
    await refusedAudit(`http://localhost:${secret.port}/`),
    /^refused: localhost resolves to (127\.0\.0\.1|::1); (127\.0\.0\.1|::1) is a loopback address$/,
  );
  assert.deepEqual(secret.requests, [], 'nothing reached the internal server');
});

/** public.example and internal.example as a DNS server would answer them; the rest as the system does. */
const resolve = async (host: string): Promise<LookupAddress[]> => {
  if (host === 'public.example') return [{ address: '127.0.0.2', family: 4 }];
  if (host === 'internal.example') return [{ address: '127.0.0.1', family: 4 }];
  if (host === 'mixed.example')
    return [
      { address: '10.0.0.1', family: 4 },
      { address: '127.0.0.2', family: 4 },
    ];
  return lookup(host, { all: true });
};

test('every redirect hop is checked after DNS: a public-looking host redirecting inward is refused', async () => {
  const fetcher = new GuardedFetcher({ allowPrivate: false, resolve, trusted: new Set(['127.0.0.2']) });
  const signal = AbortSignal.timeout(10_000);
  try {
    const ok = await fetcher.get(`http://public.example:${publicSite.port}/hello`, signal);
    assert.equal(ok.status, 200, 'the trusted public stand-in itself is reachable');
    const refused = async (path: string, message: string) => {
      await assert.rejects(fetcher.get(`http://public.example:${publicSite.port}${path}`, signal), (err: unknown) => {
        assert.ok(
          err instanceof AddressRefusedError || (err as Error).cause instanceof AddressRefusedError,
          String(err),
        );
        assert.equal((err instanceof AddressRefusedError ? err : ((err as Error).cause as Error)).message, message);
        return true;
      });
    };
    await refused('/to-loopback', 'refused: 127.0.0.1 is a loopback address');
    await refused('/to-name', 'refused: internal.example resolves to 127.0.0.1; 127.0.0.1 is a loopback address');
    await refused('/to-metadata', 'refused: 169.254.169.254 is a link-local address');
    await refused('/to-file', 'file: URLs are not fetched; only http and https');
    assert.deepEqual(publicSite.requests, ['/hello', '/to-loopback', '/to-name', '/to-metadata', '/to-file']);
    assert.deepEqual(secret.requests, [], 'no redirect reached the internal server');

    // The connection goes to an address that passed: of a name's addresses, refused ones are dropped.
    const mixed = await fetcher.get(`http://mixed.example:${publicSite.port}/hello`, signal);
    assert.equal(mixed.status, 200);
    assert.equal(publicSite.requests.at(-1), '/hello');
  } finally {
    await fetcher.close();
  }
});

test('only globally routable unicast addresses pass', () => {
  for (const ip of ['93.184.215.14', '2606:4700::6810:85e5', '8.8.8.8']) assert.equal(refusalOf(ip), null, ip);
  const refused: Record<string, string> = {
    '0.0.0.0': 'the unspecified',
    '127.1.2.3': 'a loopback',
    '172.16.5.4': 'a private',
    '192.168.1.1': 'a private',
    '100.64.0.1': 'a carrier-grade NAT',
    '224.0.0.1': 'a multicast',
    '255.255.255.255': 'the broadcast',
    '192.0.2.1': 'a reserved',
    '240.0.0.1': 'a reserved',
    'fe80::1': 'a link-local',
    'fc00::1': 'a private (unique-local)',
    '::': 'the unspecified',
    'ff02::1': 'a multicast',
  };
  for (const [ip, kind] of Object.entries(refused)) assert.equal(refusalOf(ip), `${ip} is ${kind} address`, ip);
  // IPv6 forms that carry an IPv4 address can lead back inside.
  assert.equal(refusalOf('64:ff9b::a00:1'), '64:ff9b::a00:1 is a reserved (rfc6052) address');
  assert.equal(refusalOf('2002:a00:1::'), '2002:a00:1:: is a reserved (6to4) address');
});
