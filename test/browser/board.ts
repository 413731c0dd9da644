/**
 * Bull Board under the operator pages' CSP, in a real browser (headless
 * Chromium through playwright-core): an operator and an admin log in through
 * /admin/login, the board shows the queues, and the page reports no Content
 * Security Policy violation other than Bull Board's Google Fonts stylesheet
 * (refused on purpose: nothing is fetched from outside). Screenshots go to
 * test-artifacts/ (ignored by git). Not part of `npm test` (it needs Chromium):
 *
 *   npx tsc -p . && node dist/test/browser/board.js   # CHROMIUM=/path/to/chromium to override
 */
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { mochaGlobalSetup, mochaGlobalTeardown } from '../setup.js';
import { makeOperator } from '../helpers/factories.js';
import { startApp } from '../helpers/harness.js';

const OUT = 'test-artifacts';
const ALLOWED_VIOLATION = /fonts\.googleapis\.com/;

await mochaGlobalSetup();
const app = await startApp();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
});
let failures = 0;
try {
  mkdirSync(OUT, { recursive: true });
  await app.rt.queues.add('offer-evaluation', 'evaluate', { offerUuid: '00000000-0000-4000-8000-0000000000aa' }, { jobId: 'evaluate-browser-check', delay: 3_600_000 });
  for (const role of ['operator', 'admin'] as const) {
    const { operator, password } = await makeOperator(app.rt.orm.em.fork(), { role });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${app.url}/admin/queues`);
    await page.waitForURL(/\/admin\/login$/);
    await page.fill('#username', operator.username);
    await page.fill('#password', password);
    await Promise.all([page.waitForURL(/\/admin\/queues\/?$/), page.click('button[type=submit]')]);
    await page.getByText('offer-evaluation').first().waitFor({ timeout: 15000 });
    await page.goto(`${app.url}/admin/queues/queue/offer-evaluation?status=delayed`);
    await page.getByText('evaluate-browser-check').first().waitFor({ timeout: 15000 });
    const promote = await page.getByRole('button', { name: /promote/i }).count();
    const file = `${OUT}/board-${role}.png`;
    await page.screenshot({ path: file, fullPage: true });
    const unexpected = violations.filter((v) => !ALLOWED_VIOLATION.test(v));
    const ok = unexpected.length === 0 && (role === 'admin' ? promote > 0 : promote === 0);
    if (!ok) failures++;
    console.log(
      `${ok ? 'ok  ' : 'FAIL'} ${role}: queues shown, ${promote} promote button(s), ${violations.length} CSP report(s)` +
        `${unexpected.length ? `, unexpected: ${unexpected.join(' | ')}` : ''}; screenshot ${file}`,
    );
    await context.close();
  }
  await app.rt.queues.get('offer-evaluation').remove('evaluate-browser-check');
} finally {
  await browser.close();
  await app.close();
  await mochaGlobalTeardown();
}
process.exitCode = failures ? 1 : 0;
