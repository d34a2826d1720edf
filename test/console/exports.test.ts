import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { RadarClient } from 'radar/sdk';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { checkPage, launchChromium, openPage } from '../helpers/browser.ts';
import { createAccount, createCredential, createSite, type TestAccount } from '../helpers/fixtures.ts';

/** The console's Exports page (src/console/pages/Exports.tsx): start an export, watch it, download the file. */

let app: TestApp;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let errors: string[];
let account: TestAccount;
let siteId: string;

before(async () => {
  chromium = await launchChromium();
  app = await startTestApp({ workers: ['ingest', 'exports'] });
  account = await createAccount(app.db);
  siteId = await createSite(app.url, account);
  const key = await createCredential(app.url, account, siteId, 'ingest', ['ingest:events:write']);
  const sdk = new RadarClient({ baseUrl: app.url, siteId, key });
  for (let i = 0; i < 120; i++)
    await sdk.track({ event_id: `v_${i}`, event_type: 'visit', occurred_at: '2026-11-20T08:00:00Z' });
  await sdk.shutdown();
  context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  context.setDefaultTimeout(20_000);
  ({ page, errors } = await openPage(context));
});
after(async () => {
  await context?.close();
  await chromium?.close();
  await app?.close();
});

test('a site owner starts an events export, sees it complete and downloads the CSV', async () => {
  await page.goto(`${app.url}/login`);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Sites' }).waitFor();
  await page.goto(`${app.url}/sites/${siteId}/analytics`);
  await page.getByRole('link', { name: 'Exports' }).click();
  await page.getByRole('heading', { name: 'Exports' }).waitFor();
  await page.getByText('No exports yet.').waitFor();

  await page.getByLabel('Family').selectOption('events');
  await page.getByLabel('Format').selectOption('csv');
  await page.getByRole('button', { name: 'Start export' }).click();
  const link = page.getByRole('link', { name: 'Download' });
  await link.waitFor();
  await page.getByText('120 rows').waitFor();
  await checkPage(page, errors, 'exports');

  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  assert.match(download.suggestedFilename(), /^radar-events-.*\.csv$/);
  const lines = readFileSync((await download.path())!, 'utf8')
    .trimEnd()
    .split('\r\n');
  assert.equal(lines.length, 121, 'a header and every record');
  assert.ok(lines[0]?.split(',').includes('event_id'), lines[0]);
});
