/**
 * `npm run bench:console`: the console's analytics page of a site with 90 days of data.
 *
 * 1. An in-process front door and workers on a private database; one site gets 90 days of a
 *    small product's activity (test/console/seed.ts) through the ingest API; rollups drained.
 * 2. The console's JavaScript: the initial load (index.html's entry script and what it
 *    preloads) and everything built, gzip-compressed as served.
 * 3. Lighthouse (Debian's chromium) on the analytics page, mobile and desktop presets:
 *    performance and accessibility scores, largest contentful paint, layout shift and bytes
 *    transferred; each whole report is written to test-results/lighthouse/<preset>.json.
 * 4. Time to analytics visible: Playwright opens the page BENCH_RUNS times (default 5) after a
 *    warm-up; from navigation start until the visits figure and the chart are on screen.
 *
 * Targets (issue 17): performance ≥ 90, accessibility ≥ 95, initial JavaScript ≤ 200 KB gz,
 * analytics visible within 1 s.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import lighthouse, { type Result } from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import { chromium } from 'playwright-core';
import { waitForRollups } from '../analytics/fixtures.ts';
import { startTestApp } from '../helpers/app.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/browser.ts';
import { ingestSite } from '../ingest/fixtures.ts';
import { CONSOLE_DIR } from '../../src/http/console-files.ts';
import { ingestActivity, productActivity } from '../console/seed.ts';
import { envNumber } from './env.ts';

const RUNS = envNumber('BENCH_RUNS', 5, 'count');
const DEBUG_PORT = envNumber('BENCH_DEBUG_PORT', 27222, 'count');
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
/** Where each run's whole Lighthouse report is written, to see what a score is made of. */
const REPORTS = join('test-results', 'lighthouse');

/** CLS, blocking time and the bytes on the wire by kind: what moved a score between runs. */
function pageWeight(lhr: Result): string {
  const numeric = (id: string) => lhr.audits[id]?.displayValue ?? '?';
  const requests = (lhr.audits['network-requests']?.details as { items?: NetworkRequest[] } | undefined)?.items ?? [];
  const sum = (pick: (r: NetworkRequest) => boolean) =>
    requests.filter(pick).reduce((n, r) => n + (r.transferSize ?? 0), 0);
  const api = (r: NetworkRequest) => new URL(r.url).pathname.startsWith('/api/');
  return `CLS ${numeric('cumulative-layout-shift')}, FCP ${numeric('first-contentful-paint')}, TBT ${numeric('total-blocking-time')}, render-blocking ${lhr.audits['render-blocking-resources']?.displayValue || 'none'}; transferred: API JSON ${kb(sum(api))}, console files ${kb(sum((r) => !api(r)))} in ${requests.length} requests`;
}

interface NetworkRequest {
  url: string;
  transferSize?: number;
}

function jsSizes() {
  const html = readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8');
  const initial = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const gz = (file: string) => gzipSync(readFileSync(join(CONSOLE_DIR, file)), { level: 9 }).length;
  const all = readdirSync(join(CONSOLE_DIR, 'assets'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => `assets/${f}`);
  return {
    initialGz: initial.reduce((n, f) => n + gz(f), 0),
    initialFiles: initial.length,
    allGz: all.reduce((n, f) => n + gz(f), 0),
    allRaw: all.reduce((n, f) => n + statSync(join(CONSOLE_DIR, f)).size, 0),
    files: all.length,
  };
}

const app = await startTestApp({ workers: ['ingest', 'rollup'], env: { LOG_LEVEL: 'warn' } });
try {
  const site = await ingestSite(app);
  const seeded = performance.now();
  await ingestActivity(app.url, site.siteId, site.ingestKey, productActivity(90));
  await waitForRollups(app, site.siteId, 120_000);
  console.log(`seeded 90 days in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  const url = `${app.url}/sites/${site.siteId}/analytics?range=90d&tz=Asia%2FShanghai&interval=day`;
  const cookie = `__Host-radar_session=${site.account.session}`;

  const js = jsSizes();
  console.log(
    `JavaScript: initial ${kb(js.initialGz)} gz in ${js.initialFiles} file(s); all ${js.files} files ${kb(js.allGz)} gz (${kb(js.allRaw)} raw)  [target initial <= 200 KB gz]`,
  );

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, `--remote-debugging-port=${DEBUG_PORT}`],
  });
  try {
    for (const [name, config] of [
      ['mobile', undefined],
      ['desktop', desktopConfig],
    ] as const) {
      const result = await lighthouse(
        url,
        {
          port: DEBUG_PORT,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance', 'accessibility'],
          extraHeaders: { Cookie: cookie },
        },
        config,
      );
      const lhr = result!.lhr;
      mkdirSync(REPORTS, { recursive: true });
      writeFileSync(join(REPORTS, `${name}.json`), JSON.stringify(lhr));
      const score = (c: string) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
      const lcp = lhr.audits['largest-contentful-paint']?.displayValue ?? '?';
      const failed = Object.values(lhr.audits)
        .filter((a) => a.score === 0 && lhr.categories.accessibility!.auditRefs.some((r) => r.id === a.id))
        .map((a) => a.id);
      console.log(
        `lighthouse ${name}: performance ${score('performance')}, accessibility ${score('accessibility')}, LCP ${lcp}${failed.length ? `; accessibility audits failing: ${failed.join(', ')}` : ''}  [targets >= 90, >= 95]`,
      );
      console.log(`  ${name}: ${pageWeight(lhr)}`);
    }

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const u = new URL(app.url);
    await context.addCookies([
      {
        name: '__Host-radar_session',
        value: site.account.session,
        domain: u.hostname,
        path: '/',
        secure: true,
        httpOnly: true,
        sameSite: 'Lax',
      },
    ]);
    const times: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const page = await context.newPage();
      await page.goto(url);
      await page.getByTestId('fig-visits').waitFor();
      await page.locator('.chart canvas').waitFor();
      const ms = await page.evaluate(() => performance.now());
      if (i > 0) times.push(ms);
      if (i === RUNS) {
        // Where the time of the last load went: each request's start and end since navigation.
        const entries = await page.evaluate(() =>
          (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map(
            (e: PerformanceResourceTiming) =>
              `${new URL(e.name).pathname.replace(/^.*\/(analytics|assets)\//, '$1/')} ${e.startTime.toFixed(0)}–${e.responseEnd.toFixed(0)}`,
          ),
        );
        console.log(`last load, ms since navigation: ${entries.join(', ')}`);
      }
      await page.close();
    }
    times.sort((a, b) => a - b);
    console.log(
      `analytics visible (figures and chart, 90 days, warm server, no throttling): median ${times[Math.floor(times.length / 2)]!.toFixed(0)} ms, min ${times[0]!.toFixed(0)}, max ${times.at(-1)!.toFixed(0)} over ${RUNS} loads  [target <= 1000 ms]`,
    );
    await context.close();
  } finally {
    await browser.close();
  }
} finally {
  await app.close();
}
