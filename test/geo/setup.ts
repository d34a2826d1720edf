import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createAccount, createSite, type TestAccount } from '../helpers/fixtures.ts';
import { call, type Answer, type CallOptions } from '../helpers/http.ts';

export interface GeoFixture {
  app: TestApp;
  account: TestAccount;
  siteId: string;
  /** A call on /api/v1/sites/{siteId}/geo/<path> as the account's session. */
  geo(method: string, path: string, opts?: CallOptions): Promise<Answer>;
}

/** A front door with the geo worker (and any other queues), an account and its site acme.example. */
export async function geoFixture(
  opts: { workers?: readonly string[]; env?: Record<string, string> } = {},
): Promise<GeoFixture> {
  const app = await startTestApp({ workers: ['geo', ...(opts.workers ?? [])], env: opts.env });
  const account = await createAccount(app.db);
  const siteId = await createSite(app.url, account, {
    name: 'Acme Writer',
    websiteUrl: 'https://www.acme.example/',
    description: 'An AI writing assistant',
    category: 'writing',
  });
  return {
    app,
    account,
    siteId,
    geo: (method, path, o = {}) =>
      call(app.url, method, `/api/v1/sites/${siteId}/geo/${path}`, { session: account.session, ...o }),
  };
}
