/**
 * Bull Board under the operator pages' CSP, in a real browser (headless
 * Chromium through playwright-core; .ci/run installs Debian's Chromium):
 * each role logs in through /admin/login, the board shows the queues and a
 * delayed job, the operator's view has no job actions and the admin's has,
 * and the page reports no Content Security Policy violation other than Bull
 * Board's Google Fonts stylesheet (refused on purpose: nothing is fetched from
 * outside). The admin's board offers no retry on the queues whose jobs a
 * retry would not re-run (NO_RETRY_QUEUES: the delivery log resends), and does
 * on the others. Screenshots go to test-artifacts/ (ignored by git).
 */
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { Worker } from 'bullmq';
import { chromium, type Browser } from 'playwright-core';
import { NO_RETRY_QUEUES } from '../../src/http/routes/admin.js';
import type { QueueName } from '../../src/queues/registry.js';
import { duplicateRedis } from '../../src/queues/redis.js';
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

  /** Fails the next waiting job of `queue` for good (nothing else takes it: this app runs no workers). */
  async function failOne(queue: QueueName): Promise<void> {
    const worker = new Worker(queue, null, { connection: duplicateRedis(app.rt.redis, { maxRetriesPerRequest: null }), prefix: app.rt.queues.prefixOf(queue), autorun: false });
    try {
      const job = await worker.getNextJob('board-test');
      if (!job) throw new Error(`no job waiting on ${queue}`);
      await job.moveToFailed(new Error('failed for the board test'), 'board-test');
    } finally {
      await worker.close();
      await worker.disconnect();
    }
  }

  it('admin: no retry on the queues the delivery log resends (webhook-dispatch, state-notification), retry on the others', async () => {
    await app.rt.queues.add('webhook-dispatch', 'deliver', { deliveryId: '00000000-0000-4000-8000-0000000000bb' });
    await failOne('webhook-dispatch');
    await app.rt.queues.add('offer-distribution', 'distribute', { offerUuid: '00000000-0000-4000-8000-0000000000cc' });
    await failOne('offer-distribution');
    const { operator, password } = await makeOperator(app.rt.orm.em.fork(), { role: 'admin' });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/admin/queues`);
      await page.fill('#username', operator.username);
      await page.fill('#password', password);
      await Promise.all([page.waitForURL(/\/admin\/queues\/?$/), page.click('button[type=submit]')]);

      // what the board's own API tells its page, queue by queue
      const res = await page.request.get(`${app.url}/admin/queues/api/queues?activeQueue=webhook-dispatch&status=failed&page=1`);
      expect(res.status()).to.equal(200);
      const { queues } = (await res.json()) as { queues: Array<{ name: string; allowRetries: boolean; readOnlyMode: boolean }> };
      expect(queues.map((q) => q.name)).to.have.members(app.rt.queues.all().map((q) => q.name));
      for (const q of queues) {
        expect(q.allowRetries, q.name).to.equal(!NO_RETRY_QUEUES.has(q.name));
        expect(q.readOnlyMode, q.name).to.equal(false);
      }

      // and what it shows: a failed job with and without its retry button
      for (const [queue, retries] of [['webhook-dispatch', 0], ['offer-distribution', 1]] as const) {
        await page.goto(`${app.url}/admin/queues/queue/${queue}?status=failed`);
        await page.getByText('failed for the board test').first().waitFor();
        await page.screenshot({ path: `${OUT}/board-failed-${queue}.png`, fullPage: true });
        const buttons = await page.getByRole('button', { name: /retry/i }).count();
        if (retries) expect(buttons, queue).to.be.above(0);
        else expect(buttons, queue).to.equal(0);
      }
    } finally {
      await context.close();
      await app.rt.queues.get('webhook-dispatch').remove('deliver-00000000-0000-4000-8000-0000000000bb');
      await app.rt.queues.get('offer-distribution').remove('distribute-00000000-0000-4000-8000-0000000000cc');
    }
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
        await page.waitForURL(/\/admin\/login\?next=%2Fadmin%2Fqueues$/);
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
