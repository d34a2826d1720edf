import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { checkPage, launchChromium, loggedInContext, openPage } from '../helpers/browser.ts';
import { eventually } from '../helpers/eventually.ts';
import { createAccount, createCredential, createSite, type TestAccount } from '../helpers/fixtures.ts';
import { call } from '../helpers/http.ts';
import { startFakeModel, type FakeModel } from '../geo/fake-model.ts';
import {
  GOOD_LLMS,
  GOOD_PAGE,
  GOOD_ROBOTS,
  html,
  SITEMAP,
  send,
  startPages,
  text,
  type PageServer,
} from '../geo/pages.ts';

// The relay and GEO pages, as the platform admin (channels, prices, groups) and then a site
// owner (relay keys, GEO of their site) work through them. The only fake is the model provider.
let app: TestApp;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let fake: FakeModel;
let pages: PageServer;
let admin: TestAccount;
let owner: TestAccount;
let siteId: string;
let context: BrowserContext;
let page: Page;
let errors: string[];
// A form the test fills wrongly on purpose gets its 400, which the page shows; nothing else is expected.
const EXPECTED_400 = [/Failed to load resource: the server responded with a status of 400/];

// What the fake provider answers: a model's answer names the brand and competitors, cites pages,
// and carries markup that must stay text.
const ANSWERS: Record<string, string> = {
  'geo-alpha':
    'Top picks: Inkwell is popular, and Acme Writer (https://acme.example/features) is great. <img src=x onerror=alert(1)> See javascript:alert(1).',
  'geo-beta': 'Acme is the best; QuillBot is second.',
};

before(async () => {
  chromium = await launchChromium();
  app = await startTestApp({ workers: ['geo', 'ingest'], env: { GEO_AUDIT_ALLOW_PRIVATE_HOSTS: '1' } });
  fake = await startFakeModel((model) => ({ text: ANSWERS[model] ?? 'No idea.' }));
  pages = await startPages({
    '/good': html(GOOD_PAGE),
    '/robots.txt': (req, res) => text(GOOD_ROBOTS(`http://${req.headers.host}`))(req, res),
    '/llms.txt': text(GOOD_LLMS),
    '/sitemap-main.xml': send('application/xml', SITEMAP),
  });
  admin = await createAccount(app.db, { admin: true });
  owner = await createAccount(app.db);
  siteId = await createSite(app.url, owner, {
    name: 'Acme Writer',
    websiteUrl: 'https://acme.example',
    description: 'An AI writing assistant',
    category: 'writing',
  });
});
after(async () => {
  await context?.close();
  await chromium?.close();
  await app?.close();
  await fake?.close();
  await pages?.close();
});

/** Continues as `account`, in a fresh logged-in browser context. */
async function actAs(account: TestAccount): Promise<void> {
  await context?.close();
  context = await loggedInContext(chromium.browser, app.url, account.session);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  ({ page, errors } = await openPage(context));
  page.on('dialog', (d) => void d.accept());
}

describe('relay pages', () => {
  test('the admin adds a channel, prices a model, makes a group and moves an account into it', async () => {
    await actAs(admin);
    await page.goto(app.url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Relay', exact: true }).click();
    await page.getByRole('heading', { name: 'Model relay' }).waitFor();
    await page.getByText('No channels yet').waitFor();
    const channel = page.getByRole('form', { name: 'Add a channel' });
    await channel.getByLabel('Channel name').fill('fake provider');
    await channel.getByLabel('Base URL').fill(fake.base);
    await channel.getByLabel('Models it serves').fill('geo-alpha, geo-beta, geo-gamma');
    await channel.getByRole('button', { name: 'Add channel' }).click();
    await page.getByText('Added channel fake provider.').waitFor();
    await page
      .getByRole('row', { name: /^fake provider/ })
      .getByText('geo-alpha, geo-beta, geo-gamma')
      .waitFor();

    const price = page.getByRole('form', { name: 'Set a price' });
    await price.getByLabel('Model').selectOption('geo-alpha');
    await price.getByLabel('Input, per million tokens', { exact: true }).fill('2.5');
    await price.getByLabel('Output, per million tokens').fill('10');
    await price.getByRole('button', { name: 'Set price' }).click();
    await page
      .getByRole('row', { name: /^geo-alpha/ })
      .getByText('2.5 / 2.5 / 10 USD')
      .waitFor();
    // A new price replaces it from now on; the history keeps the old one, as metered calls did.
    const history = page.getByRole('region', { name: 'Price history' });
    await history.getByLabel('Model').selectOption('geo-alpha');
    await history.getByRole('row', { name: /2\.5 2\.5 10 USD In force$/ }).waitFor();
    await price.getByLabel('Model').selectOption('geo-alpha');
    await price.getByLabel('Input, per million tokens', { exact: true }).fill('3');
    await price.getByLabel('Cached input, per million tokens').fill('0.3');
    await price.getByLabel('Output, per million tokens').fill('12');
    await price.getByRole('button', { name: 'Set price' }).click();
    await history.getByRole('row', { name: /3 0\.3 12 USD In force$/ }).waitFor();
    await history.getByLabel('Model').selectOption('geo-gamma');
    await history.getByText('geo-gamma has never had a price.').waitFor();
    await history.getByLabel('Model').selectOption('geo-alpha');
    await history.getByRole('row', { name: /2\.5 2\.5 10 USD Replaced$/ }).waitFor();
    // A price set for later is scheduled: the one in force stays so until then.
    await price.getByLabel('Model').selectOption('geo-alpha');
    await price.getByLabel('Input, per million tokens', { exact: true }).fill('4');
    await price.getByLabel('Cached input, per million tokens').fill('');
    await price.getByLabel('Output, per million tokens').fill('16');
    await price.getByLabel('Takes effect').fill('2099-01-01T00:00');
    await price.getByRole('button', { name: 'Set price' }).click();
    await history.getByRole('row', { name: /4 4 16 USD Scheduled$/ }).waitFor();
    assert.deepEqual(
      await history.getByRole('row').evaluateAll((rows) => rows.slice(1).map((r) => r.lastElementChild?.textContent)),
      ['Scheduled', 'In force', 'Replaced'],
    );
    await page
      .getByRole('row', { name: /^geo-alpha/ })
      .getByText('3 / 0.3 / 12 USD')
      .waitFor();

    const settings = page.getByRole('form', { name: 'Model settings' });
    await settings.getByLabel('Model id').fill('geo-beta');
    await settings.getByLabel('Accepted reasoning efforts').fill('low, high');
    await settings.getByLabel('Keys with a budget may call it while it has no price').check();
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings of geo-beta saved.').waitFor();
    const beta = page.getByRole('row', { name: /^geo-beta/ });
    await beta.getByText('low, high').waitFor();
    await beta.getByText('Allowed').waitFor();
    const models = await call(app.url, 'GET', '/api/v1/relay/models', { session: admin.session });
    const stored = models.body.data.find((m: { id: string }) => m.id === 'geo-beta');
    assert.deepEqual([stored.efforts, stored.kind, stored.allowUnpriced], [['low', 'high'], 'chat', true]);

    const group = page.getByRole('form', { name: 'Create or replace a group' });
    await group.getByLabel('Group name').fill('writers');
    await group.getByLabel('Models', { exact: true }).fill('geo-alpha, geo-beta');
    await group.getByLabel('Requests per minute per key').fill('120');
    await group.getByRole('button', { name: 'Save group' }).click();
    await page
      .getByRole('row', { name: /^writers/ })
      .getByText('geo-alpha, geo-beta')
      .waitFor();

    const move = page.getByRole('form', { name: 'Move an account into a group' });
    await move.getByLabel('Account').selectOption({ label: owner.email });
    await move.getByLabel('Into group').selectOption('writers');
    await move.getByRole('button', { name: 'Move account' }).click();
    await page.getByText(`Moved ${owner.email} into writers`).waitFor();
    const ownerGroup = await call(app.url, 'GET', '/api/v1/me/relay-group', { session: owner.session });
    assert.equal(ownerGroup.body.name, 'writers');
    await checkPage(page, errors, 'relay-admin');

    // The accounts list shows which group each account is in.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts' }).click();
    const accounts = page.getByRole('table', { name: 'Accounts' });
    await accounts.getByRole('row', { name: new RegExp(`^${owner.email.replace('.', '\\.')} .* writers `) }).waitFor();
    await accounts.getByRole('row', { name: new RegExp(`^${admin.email.replace('.', '\\.')} .* default `) }).waitFor();
    await checkPage(page, errors, 'accounts-groups');
  });

  test("an account creates a key limited to its group's models, sees it once, calls /v1/models with it, disables and deletes it", async () => {
    await actAs(owner);
    await page.goto(app.url);
    await page.getByRole('link', { name: 'Relay keys' }).click();
    await page.getByRole('heading', { name: 'Relay keys' }).waitFor();
    await page.getByLabel('Name').fill('ci');
    await page.getByLabel('Only some').check();
    assert.equal(await page.getByText('geo-gamma').count(), 0, 'a model outside the group is not offered');
    await page.getByRole('checkbox', { name: 'geo-alpha' }).check();
    await page.getByText('Limits, budget, expiry and site').click();
    await page.getByLabel('Requests per minute').fill('30');
    await page.getByLabel('Used for site').selectOption({ label: 'Acme Writer' });
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByTestId('secret');
    await secret.waitFor();
    const key = (await secret.textContent())!;
    await page.getByText("You won't see it again.").waitFor();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText('Secret copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
    await checkPage(page, errors, 'relay-key-secret');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    assert.equal(await page.getByTestId('secret').count(), 0, 'the key is gone from the page');

    const models = await fetch(`${app.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(models.status, 200);
    assert.deepEqual(
      ((await models.json()) as { data: { id: string }[] }).data.map((m) => m.id),
      ['geo-alpha'],
      'the key calls exactly the model picked',
    );
    const row = page.getByRole('row', { name: /^ci/ });
    await row.getByText('30 req/min').waitFor();
    await row.getByText('site Acme Writer').waitFor();

    // Per-key settings change in place: a budget.
    await page.getByRole('button', { name: 'Change settings of ci' }).click();
    const settings = page.getByRole('form', { name: 'Settings of ci' });
    assert.equal(await settings.getByLabel('Requests per minute').inputValue(), '30');
    await settings.getByLabel('Budget', { exact: true }).fill('12.5');
    await settings.getByRole('button', { name: 'Save settings of ci' }).click();
    await row.getByText('budget 12.5 USD per month').waitFor();

    await page.getByRole('button', { name: 'Disable ci' }).click();
    await row.getByText(/^Disabled/).waitFor();
    await eventually(
      async () =>
        (await fetch(`${app.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status === 401 ||
        undefined,
      5_000,
      'the disabled key to be refused',
    );
    await checkPage(page, errors, 'relay-keys');
    await page.getByRole('button', { name: 'Delete ci' }).click();
    await page.getByText('No relay keys yet.').waitFor();
  });
});

describe('GEO pages', () => {
  test('setup: brand, competitors, models and schedule; prompts', async () => {
    await page.goto(`${app.url}/sites/${siteId}/analytics`);
    await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'GEO' }).click();
    await page.getByText('GEO is not set up for this site yet.').waitFor();
    await page.getByRole('link', { name: 'Setup' }).click();
    await page.getByLabel('Brand name').fill('Acme Writer');
    await page.getByLabel('Other names of the brand').fill('Acme');
    await page.getByRole('textbox', { name: 'Competitors' }).fill('Inkwell, Inkwell AI\nQuillBot');
    await page.getByLabel('Models', { exact: true }).fill('geo-alpha, geo-nope');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByText(/\/models\/1: .*geo-nope/).waitFor();
    await page.getByLabel('Models', { exact: true }).fill('geo-alpha, geo-beta');
    await page.getByLabel('Run on a schedule').check();
    await page.getByLabel('Cron pattern').fill('0 6 * * *');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByText('Configuration saved.').waitFor();
    const config = await call(app.url, 'GET', `/api/v1/sites/${siteId}/geo/config`, { session: owner.session });
    assert.deepEqual(config.body.data.competitors, [
      { name: 'Inkwell', aliases: ['Inkwell AI'] },
      { name: 'QuillBot', aliases: [] },
    ]);
    assert.deepEqual(config.body.data.schedule, { cron: '0 6 * * *', tz: 'Asia/Shanghai' });

    await page.getByLabel('New prompt').fill('What is the best AI writing tool?');
    await page.getByRole('button', { name: 'Add prompt' }).click();
    await page.getByRole('listitem').filter({ hasText: 'What is the best AI writing tool?' }).waitFor();
    await page.getByText('1 of at most 200 prompts.').waitFor();
    await checkPage(page, errors, 'geo-setup', EXPECTED_400);
  });

  test('runs: run now, answers with mentions marked as text, citations as safe links', async () => {
    await page.getByRole('link', { name: 'Runs and answers' }).click();
    await page.getByText('No runs yet.').waitFor();
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.waitForURL(/\?run=/);
    await page.getByText('Succeeded', { exact: true }).waitFor();
    const alpha = page.getByRole('article', { name: /^geo-alpha/ });
    await alpha.locator('mark.mention-brand', { hasText: 'Acme Writer' }).waitFor();
    assert.equal(await alpha.locator('mark.mention-competitor', { hasText: 'Inkwell' }).count(), 1);
    assert.equal(await alpha.locator('img').count(), 0, "a model's markup is not rendered");
    await alpha.getByText('<img src=x onerror=alert(1)>', { exact: false }).waitFor();
    const beta = page.getByRole('article', { name: /^geo-beta/ });
    await beta.locator('mark.mention-brand', { hasText: 'Acme' }).waitFor();
    await beta.locator('mark.mention-competitor', { hasText: 'QuillBot' }).waitFor();
    const cited = page.getByRole('link', { name: 'https://acme.example/features' }).first();
    assert.equal(await cited.getAttribute('rel'), 'noopener noreferrer');
    assert.equal(await page.locator('a[href^="javascript:"]').count(), 0);
    await page.getByRole('heading', { name: 'Cited pages in this run' }).waitFor();
    await page.getByRole('row', { name: /acme\.example\/features.*your site/ }).waitFor();
    await checkPage(page, errors, 'geo-runs');
    // The URL holds the run shown: a reload shows the same answers.
    await page.reload();
    await page.getByRole('article', { name: /^geo-alpha/ }).waitFor();
  });

  test('visibility: share of voice, trends chart and AI-referral visits', async () => {
    const ingest = await createCredential(app.url, owner, siteId, 'ingest', ['ingest:events:write']);
    const now = Date.now();
    const visit = (i: number, channel: string) => ({
      source: 'site_backend',
      event_id: `ai_${i}`,
      event_type: 'visit',
      occurred_at: new Date(Math.floor((now - i * 3_600_000) / 60_000) * 60_000).toISOString(),
      external_user_id: `v${i}`,
      properties: { channel },
    });
    const sent = await call(app.url, 'POST', `/api/v1/sites/${siteId}/ingest/events`, {
      bearer: ingest,
      body: {
        schema_version: 'events.v1',
        batch_id: 'ai-visits',
        records: [visit(1, 'chatgpt.com'), visit(2, 'https://www.perplexity.ai/search?q=acme'), visit(3, 'google')],
      },
    });
    assert.ok([200, 202].includes(sent.status), sent.text);
    await eventually(
      async () => {
        const t = await call(app.url, 'GET', `/api/v1/sites/${siteId}/geo/traffic?tz=Asia/Shanghai`, {
          session: owner.session,
        });
        return t.body.data?.visits === 2 || undefined;
      },
      20_000,
      'the AI visits to be ingested',
    );
    await page.getByRole('link', { name: 'Visibility' }).click();
    // Both answers name someone and both name the brand: share of voice 100%, mention rate 100%.
    await page.getByTestId('geo-sov').getByText('100.0%').waitFor();
    await page.getByTestId('geo-sov').getByText('2 of 2 answers naming anyone').waitFor();
    await page.getByTestId('geo-position').getByText('1.5').waitFor();
    await page
      .getByRole('table', { name: 'Brand and competitors in the answers' })
      .getByRole('row', { name: /^Inkwell/ })
      .waitFor();
    await page
      .getByTestId('geo-freshness')
      .getByText(/models answered: 2 of 2/)
      .waitFor();
    await page
      .getByRole('img', { name: /Share of voice, mention rate and citation rate per day/ })
      .locator('canvas')
      .waitFor();
    await page.getByTestId('geo-traffic-total').getByText('2').waitFor();
    await page.getByRole('row', { name: 'chatgpt 1' }).waitFor();
    await page.getByRole('row', { name: 'perplexity 1' }).waitFor();
    await page.getByLabel('Range').selectOption('7');
    await page.waitForURL(/days=7/);
    await page.reload();
    assert.equal(await page.getByLabel('Range').inputValue(), '7');
    await page.getByTestId('geo-sov').getByText('100.0%').waitFor();
    await checkPage(page, errors, 'geo-visibility');
  });

  test('audits: audit a URL; every check as pass, warn or fail with its detail', async () => {
    await page.getByRole('link', { name: 'Page audits' }).click();
    await page.getByText('No audits yet.').waitFor();
    await page.getByLabel('Page URL').fill(`${pages.origin}/good`);
    await page.getByRole('button', { name: 'Start audit' }).click();
    await page
      .getByTestId('audit-score')
      .first()
      .getByText(/^Score \d+ of 100/)
      .waitFor();
    const checks = page.getByRole('table', { name: `Checks of ${pages.origin}/good` }).first();
    await checks.getByRole('row', { name: /^llms_txt Pass/ }).waitFor();
    await checks.getByRole('row', { name: /^https Fail/ }).waitFor();
    await page
      .getByRole('group')
      .filter({ hasText: `${pages.origin}/good · score` })
      .waitFor();
    await checkPage(page, errors, 'geo-audits');

    // On a phone an id wraps between its words, never inside one.
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: 360, height: 740 });
    const brokenWords = await checks.locator('code.check-id').evaluateAll((codes) =>
      codes.flatMap((code) =>
        [...code.querySelectorAll('*'), code].flatMap((el) =>
          [...el.childNodes]
            .filter((n) => n.nodeType === Node.TEXT_NODE && n.textContent !== '_')
            .filter((n) => {
              const range = document.createRange();
              range.selectNodeContents(n);
              return range.getClientRects().length > 1;
            })
            .map((n) => `${code.textContent}: ${n.textContent}`),
        ),
      ),
    );
    const wrapped = await checks
      .locator('code.check-id', { hasText: 'robots_ai_crawlers' })
      .evaluate((c) => c.getClientRects().length);
    await page.setViewportSize(viewport);
    assert.deepEqual(brokenWords, []);
    assert.ok(wrapped > 1, 'the long id wraps at its underscores on a phone');

    // A second page that cannot be read; then the list filtered by status and by page.
    await page.getByLabel('Page URL').fill(`${pages.origin}/gone`);
    await page.getByRole('button', { name: 'Start audit' }).click();
    await page.getByText('Score 0 of 100 (the page could not be read)').first().waitFor();
    const recent = page.getByRole('region', { name: 'Recent audits' });
    const listed = recent.locator('summary');
    await listed.filter({ hasText: `${pages.origin}/gone · score 0` }).waitFor();
    assert.equal(await listed.count(), 2);
    const filter = page.getByRole('search', { name: 'Filter audits' });
    await filter.getByLabel('Status').selectOption({ label: 'Failed (page not read)' });
    await page.waitForURL(/[?&]status=failed/);
    await listed.filter({ hasText: `${pages.origin}/good` }).waitFor({ state: 'detached' });
    const failedOnly = await listed.allTextContents();
    assert.equal(failedOnly.length, 1, failedOnly.join('\n'));
    assert.ok(failedOnly[0]!.startsWith(`${pages.origin}/gone · score 0`), failedOnly[0]);
    await filter.getByLabel('Status').selectOption({ label: 'Any status' });
    await filter.getByLabel('Page').selectOption(`${pages.origin}/good`);
    await listed.filter({ hasText: `${pages.origin}/gone` }).waitFor({ state: 'detached' });
    const goodOnly = await listed.allTextContents();
    assert.equal(goodOnly.length, 1, goodOnly.join('\n'));
    assert.ok(goodOnly[0]!.startsWith(`${pages.origin}/good · score`), goodOnly[0]);
    await filter.getByLabel('Status').selectOption({ label: 'Running' });
    await recent.getByText('No audits match this filter.').waitFor();
    await checkPage(page, errors, 'geo-audits-filtered');
    // The filter is in the URL: a reload shows the same list.
    await page.reload();
    await page.getByRole('search', { name: 'Filter audits' }).getByLabel('Status').waitFor();
    assert.equal(
      await page.getByRole('search', { name: 'Filter audits' }).getByLabel('Status').inputValue(),
      'running',
    );
    assert.equal(
      await page.getByRole('search', { name: 'Filter audits' }).getByLabel('Page').inputValue(),
      `${pages.origin}/good`,
    );
    await page.getByLabel('Page URL').fill('ftp://example.com/');
    await page.getByRole('button', { name: 'Start audit' }).click();
    await page.getByText(/must be an absolute http or https URL/).waitFor();
    errors.splice(0, errors.length, ...errors.filter((e) => !EXPECTED_400.some((r) => r.test(e))));
    assert.deepEqual(errors, []);
  });
});
