import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ConsoleFiles } from '../../src/http/console-files.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(process.cwd(), 'test-results', 'console');

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];

/**
 * Debian's Chromium, headless. Missing Chromium or a missing console
 * build is a failure that says how to fix it, never a skip.
 */
export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  assert.ok(
    existsSync(CHROMIUM),
    `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does so when it can`,
  );
  assert.ok(
    new ConsoleFiles().built,
    'the console is not built: run npm install (its prepare script builds dist/console)',
  );
  // Playwright gives every launch a fresh temporary profile of its own and removes it on close.
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  return { browser, close: () => browser.close() };
}

/** A page that records every error the browser's console or the page itself reports. */
export async function openPage(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

/**
 * What every page must pass: no serious or critical axe violation, no browser-console error
 * (except `allowed`, e.g. an expected 401 the page itself handles), and a screenshot to look at.
 */
export async function checkPage(page: Page, errors: string[], name: string, allowed: RegExp[] = []): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  // The same page at a phone's width, to look at: layouts break there first.
  const viewport = page.viewportSize();
  if (viewport && viewport.width > 360) {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
    // Wide tables scroll inside their own box; the page itself never scrolls sideways.
    const wider = await page.evaluate(() => {
      if (document.documentElement.scrollWidth <= window.innerWidth + 1) return [];
      const out = [...document.querySelectorAll('body *')].filter(
        (e) => e.getBoundingClientRect().right > window.innerWidth + 1,
      );
      return out.slice(-3).map((e) => `${e.tagName.toLowerCase()}.${e.className}: ${e.textContent?.slice(0, 40)}`);
    });
    assert.deepEqual(wider, [], `${name}: the page scrolls sideways on a 360-px phone`);
    await page.setViewportSize(viewport);
  }
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map(
      (v) =>
        `${v.id}: ${v.help} (${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(' | ')})`,
    ),
    [],
    `${name}: accessibility`,
  );
  const unexpected = errors.filter((e) => !allowed.some((a) => a.test(e)));
  assert.deepEqual(unexpected, [], `${name}: browser console errors`);
  errors.length = 0;
}

/** A browser context already logged in with a session token, as a person who logged in before. */
export async function loggedInContext(
  browser: Browser,
  appUrl: string,
  session: string,
  options: Parameters<Browser['newContext']>[0] = { viewport: { width: 1280, height: 900 } },
): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(20_000);
  await context.addCookies([
    {
      name: '__Host-radar_session',
      value: session,
      domain: new URL(appUrl).hostname,
      path: '/',
      secure: true,
      httpOnly: true,
      sameSite: 'Lax',
    },
  ]);
  return context;
}
