/**
 * Bull Board under the operator pages' CSP, in a real browser (headless
 * Chromium through playwright-core; .ci/run installs Debian's Chromium):
 * each role logs in through /admin/login, the board shows the queues and a
 * delayed job, the operator's view has no job actions and the admin's has,
 * and the page reports no Content Security Policy violation other than Bull
 * Board's Google Fonts stylesheet (refused on purpose: nothing is fetched from
 * outside). Screenshots go to test-artifacts/ (ignored by git).
 */
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { makeOperator } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';

const OUT = 'test-artifacts';
const EXPECTED_VIOLATION = /fonts\.googleapis\.com/;
// The registry's id of an evaluation of this offer (src/queues/registry.ts): shown on the board.
const JOB = 'evaluate-00000000-0000-4000-8000-0000000000aa';

describe('Bull Board in headless Chromium: CSP and roles (D15)', function () {
  this.timeout(60000);
  let app: TestApp;
  let browser: Browser;

  before(async () => {
    app = await startApp({ env: { QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_browser` } });
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
    });
    mkdirSync(OUT, { recursive: true });
    await app.rt.queues.add('offer-evaluation', 'evaluate', { offerUuid: '00000000-0000-4000-8000-0000000000aa' }, { delay: 3_600_000 });
  });
  after(async () => {
    await app.rt.queues.get('offer-evaluation').remove(JOB);
    await browser?.close();
    await app.close();
  });

  for (const role of ['operator', 'admin'] as const) {
    it(`${role}: logs in through the form, sees the queues and the delayed job, ${role === 'admin' ? 'with' : 'without'} job actions; no unexpected CSP report`, async () => {
      const { operator, password } = await makeOperator(app.rt.orm.em.fork(), { role });
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const page = await context.newPage();
        const reports: string[] = [];
        page.on('console', (m) => {
          if (/Content Security Policy/i.test(m.text())) reports.push(m.text());
        });
        await page.goto(`${app.url}/admin/queues`);
        await page.waitForURL(/\/admin\/login$/);
        await page.fill('#username', operator.username);
        await page.fill('#password', password);
        await Promise.all([page.waitForURL(/\/admin\/queues\/?$/), page.click('button[type=submit]')]);
        await page.getByText('offer-evaluation').first().waitFor();
        await page.goto(`${app.url}/admin/queues/queue/offer-evaluation?status=delayed`);
        await page.getByText(JOB).first().waitFor();
        await page.screenshot({ path: `${OUT}/board-${role}.png`, fullPage: true });
        const actions = await page.getByRole('button', { name: /promote/i }).count();
        if (role === 'admin') expect(actions).to.be.above(0);
        else expect(actions).to.equal(0);
        expect(reports.filter((r) => !EXPECTED_VIOLATION.test(r))).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  }
});
