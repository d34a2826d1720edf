import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { eventually } from '../helpers/eventually.ts';
import { createAccount, type TestAccount } from '../helpers/fixtures.ts';
import { checkPage, launchChromium, openPage } from '../helpers/browser.ts';
import { call } from '../helpers/http.ts';
import { relayFixture, type RelayFixture } from '../relay/setup.ts';

// The usage page of an account with real metered calls, then the admin's view of every key.
let fx: RelayFixture;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let errors: string[];
let admin: TestAccount;
let ann: TestAccount;
let bob: TestAccount;
const TZ = 'America/New_York';

async function keyOf(who: TestAccount, name: string): Promise<{ id: string; key: string }> {
  const made = await call(fx.app.url, 'POST', '/api/v1/me/relay-keys', {
    session: who.session,
    body: { name, models: ['*'] },
  });
  assert.equal(made.status, 200, made.text);
  return made.body;
}

before(async () => {
  chromium = await launchChromium();
  fx = await relayFixture();
  const upstream = await fx.fake();
  await fx.channel({ baseUrl: upstream.base, models: ['gpt-usage', 'free-usage'] });
  admin = await createAccount(fx.app.db, { admin: true });
  ann = await createAccount(fx.app.db);
  bob = await createAccount(fx.app.db);
  const priced = await call(fx.app.url, 'POST', '/api/v1/relay/prices', {
    session: admin.session,
    body: { model: 'gpt-usage', currency: 'USD', input: '2.5', output: '10' },
  });
  assert.equal(priced.status, 200, priced.text);
  const annKey = await keyOf(ann, 'ann laptop');
  const bobKey = await keyOf(bob, 'bob server');
  const chat = (key: string, model: string) =>
    call(fx.app.url, 'POST', '/v1/chat/completions', {
      bearer: key,
      body: { model, messages: [{ role: 'user', content: 'a few words to count' }] },
    });
  for (let i = 0; i < 3; i++) assert.equal((await chat(annKey.key, 'gpt-usage')).status, 200);
  assert.equal((await chat(annKey.key, 'free-usage')).status, 200);
  assert.equal((await chat(bobKey.key, 'gpt-usage')).status, 200);
  // Earlier days of ann's, as the usage worker writes them, so the charts have lines.
  for (let d = 1; d <= 5; d++) {
    await fx.app.db.none(
      `INSERT INTO relay_usage (id, at, request_id, key_id, model, endpoint, stream, status, input_tokens,
         output_tokens, cached_tokens, reasoning_tokens, ttfb_ms, duration_ms, cost_nanos, currency, unpriced)
       VALUES ($1, now() - make_interval(days => $2), 'r', $3, 'gpt-usage', 'chat', true, 200, $4, $5, 0, $6, $7, $8, $9, 'USD', false)`,
      [randomUUID(), d, annKey.id, 100 * d, 40 * d, 8 * d, 20 + d, 200 + 30 * d, 650_000 * d],
    );
  }
  await eventually(async () => {
    const n = await fx.app.db.one('SELECT count(*)::int AS n FROM relay_usage');
    return n.n === 10 ? true : undefined;
  });
  context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(20_000);
  ({ page, errors } = await openPage(context));
});
after(async () => {
  await context?.close();
  await chromium?.close();
  await fx?.close();
});

const usageTable = () => page.getByRole('table', { name: 'Usage per day, key and model' });

async function logIn(who: TestAccount) {
  await context.clearCookies();
  await page.goto(`${fx.app.url}/login`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Sites' }).waitFor();
}

test("an account's model usage: figures, four charts and the table of its own keys, in the time zone chosen", async () => {
  await logIn(ann);
  await page.getByRole('link', { name: 'Model usage' }).click();
  await page.getByRole('heading', { name: 'Model usage' }).waitFor();
  await page.getByLabel('Time zone').fill(TZ);
  await page.waitForURL(/tz=America%2FNew_York/);
  await usageTable().waitFor();
  assert.equal(await page.getByTestId('usage-calls').locator('.figure-value').textContent(), '9');
  assert.equal(await page.getByTestId('usage-unpriced-calls').locator('.figure-value').textContent(), '1');
  // 5 earlier days at 0.00065 USD × d, plus today's three calls at their metered cost.
  const today = await fx.app.db.one(
    "SELECT sum(cost_nanos)::bigint AS n FROM relay_usage WHERE model = 'gpt-usage' AND at > now() - interval '1 hour' AND key_id IN (SELECT id FROM relay_keys WHERE name = 'ann laptop')",
  );
  const total = (650_000 * 15 + today.n) / 1e9;
  assert.equal(await page.getByTestId('usage-cost').locator('.figure-value').textContent(), `${+total.toFixed(9)} USD`);
  assert.equal(await page.locator('.uplot').count(), 4, 'calls, tokens, cost and latency charts');
  const keys = await usageTable().getByRole('row').locator('td:nth-child(2)').allTextContents();
  assert.deepEqual([...new Set(keys)], ['ann laptop'], "only the account's own key");
  assert.ok(await page.getByRole('cell', { name: 'free-usage' }).isVisible());
  await checkPage(page, errors, 'relay-usage');
});

test("the admin chooses every key, and sees the other accounts' keys too", async () => {
  await logIn(admin);
  await page.goto(`${fx.app.url}/relay/usage?tz=UTC`);
  await page.getByText('No calls in this window.').waitFor();
  await page.getByLabel('Keys').selectOption('all');
  await usageTable().waitFor();
  const keys = await usageTable().getByRole('row').locator('td:nth-child(2)').allTextContents();
  assert.deepEqual([...new Set(keys)].sort(), ['ann laptop', 'bob server']);
  await checkPage(page, errors, 'relay-usage-admin');
});
