import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { issueSetupLink } from '../../src/admin/setup.ts';
import { waitForRollups } from '../analytics/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { checkPage, launchChromium, loggedInContext, openPage, SCREENSHOTS } from '../helpers/browser.ts';
import { call } from '../helpers/http.ts';
import { ingestActivity, productActivity } from './seed.ts';

// One app, one browser and one logged-in page for the whole file: each test continues where
// the previous one left off, as a person working through the console would.
let app: TestApp;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let errors: string[];
let siteId: string;
let ingestSecret: string;
let session: string;
const ADMIN = { email: 'admin@example.com', password: 'correct horse battery' };
// A page's own 401 before it redirects to login is expected; nothing else is.
const EXPECTED_401 = [/Failed to load resource: the server responded with a status of 401/];

before(async () => {
  chromium = await launchChromium();
  app = await startTestApp({ workers: ['ingest', 'rollup'] });
  context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(20_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  ({ page, errors } = await openPage(context));
  page.on('dialog', (d) => void d.accept());
});
after(async () => {
  await context?.close();
  await chromium?.close();
  await app?.close();
});

const sha256 = (s: string) => createHash('sha256').update(s).digest('base64');
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const sessionCookie = async () => (await context.cookies()).find((c) => c.name === '__Host-radar_session')?.value;

describe('the console', () => {
  test('is served with a CSP without inline script, frame-ancestors none, hashed assets immutable, compressed', async () => {
    const index = await fetch(`${app.url}/sites/x/analytics`, { headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(index.status, 200);
    const csp = index.headers.get('content-security-policy')!;
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    const html = await index.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    // The entry's styles are in the page (no stylesheet request before the first paint), and
    // the CSP allows exactly them by their hash.
    assert.doesNotMatch(html, /<link rel="stylesheet"/);
    const styles = /<style>([\s\S]+?)<\/style>/.exec(html)?.[1] ?? '';
    assert.ok(styles.includes('.figure'), 'the entry stylesheet is inlined');
    assert.match(csp, new RegExp(`style-src 'self' 'sha256-${escapeRegExp(sha256(styles))}'(;|$)`));
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(app.url + asset, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(js.headers.get('content-encoding'), 'gzip');
    assert.equal((await fetch(`${app.url}/assets/missing.js`)).status, 404);
    assert.equal(
      (await fetch(`${app.url}/api/v1/nothing`)).headers.get('content-type'),
      'application/problem+json; charset=utf-8',
    );
  });

  test('first run: the setup link creates the platform admin and logs in', async () => {
    const link = (await issueSetupLink(app.db, app.url))!;
    await page.goto(link);
    await page.getByRole('heading', { name: 'Set up Radar' }).waitFor();
    await checkPage(page, errors, 'setup');
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Create admin and log in' }).click();
    await page.getByRole('heading', { name: 'Sites' }).waitFor();
    assert.equal(new URL(page.url()).hash, '', 'the token leaves the address bar');
    session = (await sessionCookie())!;
    assert.ok(session, 'the __Host- session cookie is set');
    assert.equal((await call(app.url, 'GET', '/api/v1/me', { session })).body.admin, true);
  });

  test('sites: submit one, see it in review', async () => {
    await page.getByRole('button', { name: 'Submit a site' }).click();
    await page.getByLabel('Name').fill('Acme <b>Writer</b>');
    await page.getByLabel('Website URL').fill('https://acme.example');
    await page.getByLabel('Description').fill('An AI writing assistant');
    await page.getByLabel('Category').selectOption('writing');
    await page.getByRole('button', { name: 'Submit for review' }).click();
    const card = page.getByRole('listitem').filter({ hasText: 'Acme <b>Writer</b>' });
    await card.getByText('In review').waitFor();
    const sites = await call(app.url, 'GET', '/api/v1/me/sites', { session });
    siteId = sites.body.data[0].id;
    assert.equal(sites.body.data[0].name, 'Acme <b>Writer</b>', 'markup a user typed is kept as text');
    await checkPage(page, errors, 'sites');
  });

  test('review queue: the admin approves the site with its details shown', async () => {
    await page.getByRole('link', { name: 'Review queue' }).click();
    await page.getByText('https://acme.example').waitFor();
    assert.equal(
      await page.getByRole('link', { name: 'https://acme.example' }).getAttribute('rel'),
      'noopener noreferrer',
    );
    await checkPage(page, errors, 'review-queue');
    await page.getByRole('button', { name: 'Approve Acme <b>Writer</b>' }).click();
    await page.getByText('Nothing to review.').waitFor();
    assert.equal((await call(app.url, 'GET', `/api/v1/sites/${siteId}`, { session })).body.reviewStatus, 'approved');
  });

  test('settings: editing warns about review and sends the site back to it', async () => {
    await page.goto(`${app.url}/sites/${siteId}/settings`);
    await page.getByText('sends it back to review').waitFor();
    await page.getByLabel('Description').fill('An AI writing assistant for teams');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Review status: pending review').waitFor();
    await checkPage(page, errors, 'site-settings');
  });

  test('credentials: the scope picker offers what the kind allows; the secret is shown once and copied; revoke', async () => {
    await page.getByRole('link', { name: 'Credentials' }).click();
    await page.getByLabel('Name').fill('backend ingest');
    await page.getByLabel(/^Ingest/).check();
    assert.equal(await page.getByText('analytics:read').count(), 0, 'an ingest credential is not offered read scopes');
    await page.getByRole('button', { name: 'Select all' }).click();
    await page.getByRole('button', { name: 'Create credential' }).click();
    const secret = page.getByTestId('secret');
    await secret.waitFor();
    ingestSecret = (await secret.textContent())!;
    assert.match(ingestSecret, /^rdr_ingest_[\w-]{43}$/);
    await page.getByText("You won't see it again.").waitFor();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText('Secret copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), ingestSecret);
    await checkPage(page, errors, 'credential-secret');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    assert.equal(await page.getByTestId('secret').count(), 0, 'the secret is gone from the page');

    await page.getByLabel('Name').fill('throwaway');
    await page.getByLabel(/^Read/).check();
    await page.getByLabel('analytics:read').check();
    await page.getByRole('button', { name: 'Create credential' }).click();
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('button', { name: 'Revoke throwaway' }).click();
    await page.getByRole('row').filter({ hasText: 'throwaway' }).getByText('Revoked').waitFor();
    await checkPage(page, errors, 'credentials');
  });

  test('analytics: numbers ingested through the API appear in the figures, chart and tables; the URL keeps the view', async () => {
    await ingestActivity(app.url, siteId, ingestSecret, productActivity(40));
    await waitForRollups(app, siteId);
    const expected = await call(app.url, 'GET', `/api/v1/sites/${siteId}/analytics/overview?tz=Asia/Shanghai`, {
      session,
    });
    assert.ok(expected.body.data.visits > 0);
    await page.getByRole('link', { name: 'Analytics' }).click();
    await page.getByTestId('fig-visits').getByText(expected.body.data.visits.toLocaleString('en-US')).waitFor();
    await page.getByTestId('fig-receipts').getByText('€').waitFor();
    await page.locator('.chart canvas').waitFor();
    await page
      .getByTestId('freshness')
      .getByText(/As of \d\d:\d\d:\d\d, 0 hours pending/)
      .waitFor();
    await page
      .getByRole('row', { name: /^events/ })
      .getByText(/of 30$/)
      .waitFor();
    await page
      .getByRole('table', { name: 'Channels' })
      .getByRole('row', { name: /^social/ })
      .waitFor();
    await page
      .getByRole('table', { name: 'AI assistants' })
      .getByRole('row', { name: /^ChatGPT/ })
      .waitFor();
    await page.getByRole('heading', { name: 'Unit economics' }).waitFor();
    await page.getByRole('table', { name: 'Lowest margins (USD)' }).waitFor();
    await checkPage(page, errors, 'analytics');

    await page.getByLabel('Range').selectOption('7d');
    await page.getByLabel('Chart by').selectOption('week');
    await page.waitForURL(/range=7d/);
    await page.reload();
    assert.equal(await page.getByLabel('Range').inputValue(), '7d');
    assert.equal(await page.getByLabel('Chart by').inputValue(), 'week');
    await page.getByRole('heading', { name: 'Per week' }).waitFor();

    await page.getByLabel('Range').selectOption('custom');
    await page.getByLabel(/^From/).waitFor();
    await page.getByLabel(/^From/).fill('2026-01-01T10:15');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/from=2026-01-01T10%3A15/);
    await page
      .getByTestId('freshness')
      .getByText(/1 Jan 2026, 10:15/)
      .waitFor();
    await checkPage(page, errors, 'analytics-custom');
  });

  test('ingest: recent batches, and every reason of a rejected one', async () => {
    const stale = await call(app.url, 'POST', `/api/v1/sites/${siteId}/ingest/events`, {
      bearer: ingestSecret,
      body: {
        schema_version: 'events.v1',
        batch_id: 'late-fix',
        records: [
          {
            source: 'site_backend',
            event_id: 'visit_0_0',
            revision: 1,
            event_type: 'visit',
            occurred_at: '2026-01-01T00:00:00Z',
          },
        ],
      },
    });
    assert.equal(stale.status, 409, stale.text);
    await page.getByRole('link', { name: 'Ingest' }).click();
    await page.getByRole('cell', { name: 'late-fix' }).waitFor();
    await page.getByText(stale.body.errors[0].message).waitFor();
    await checkPage(page, errors, 'ingest');
  });

  test('records: a table per family with from/to and pages', async () => {
    await page.getByRole('link', { name: 'Records' }).click();
    await page.getByText(/^Records 1–50 of \d+/).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText(/^Records 51–100 of/).waitFor();
    await page.getByLabel('Family').selectOption('orders');
    await page.getByRole('columnheader', { name: 'amount_minor' }).waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download shown (JSON)' }).click();
    assert.match((await download).suggestedFilename(), /^orders-1-\d+\.json$/);
    await checkPage(page, errors, 'records');
  });

  test('accounts: the admin creates one, sees its relay group, and disables it', async () => {
    await page.getByRole('link', { name: 'Accounts' }).click();
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Initial password').fill('owner password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Created owner@example.com.').waitFor();
    const table = page.getByRole('table', { name: 'Accounts' });
    const header = await table.getByRole('columnheader').allTextContents();
    const row = table.getByRole('row', { name: /owner@example\.com/ });
    const cells = await row.getByRole('cell').allTextContents();
    assert.equal(cells[header.indexOf('Relay group')], 'default');
    await page.getByRole('button', { name: 'Disable owner@example.com' }).click();
    await page.getByRole('button', { name: 'Enable owner@example.com' }).waitFor();
    await checkPage(page, errors, 'accounts');
  });

  test('a lost session sends you to log in and back to where you were; log out', async () => {
    await call(app.url, 'POST', '/api/v1/auth/logout', { session });
    await page.goto(`${app.url}/sites/${siteId}/ingest`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByRole('heading', { name: 'Log in to Radar' }).waitFor();
    await checkPage(page, errors, 'login', EXPECTED_401);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').getByText('Email or password is wrong').waitFor();
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${app.url}/sites/${siteId}/ingest`);
    await page.getByRole('heading', { name: 'Recent batches' }).waitFor();
    errors.splice(0, errors.length, ...errors.filter((e) => !EXPECTED_401.some((r) => r.test(e))));
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in to Radar' }).waitFor();
    assert.equal(await sessionCookie(), undefined);
    session = (await call(app.url, 'POST', '/api/v1/auth/login', { body: ADMIN })).headers
      .get('set-cookie')!
      .match(/__Host-radar_session=([^;]+)/)![1]!;
  });

  test('works on a 360-px-wide phone: analytics without sideways scrolling of the page', async () => {
    const phone = await loggedInContext(chromium.browser, app.url, session, {
      viewport: { width: 360, height: 740 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    try {
      const { page: mobile, errors: mobileErrors } = await openPage(phone);
      await mobile.goto(`${app.url}/sites/${siteId}/analytics?range=30d&tz=Asia%2FShanghai&interval=day`);
      await mobile.getByTestId('fig-visits').waitFor();
      await mobile.locator('.chart canvas').waitFor();
      assert.ok(
        await mobile.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1),
        'no sideways scrolling',
      );
      await mobile.screenshot({ path: join(SCREENSHOTS, 'analytics-phone-first-screen.png') });
      await checkPage(mobile, mobileErrors, 'analytics-phone');
    } finally {
      await phone.close();
    }
  });
});
