/**
 * GET /api/v3/docs renders the OpenAPI document in a real browser (headless
 * Debian Chromium through playwright-core), with nothing fetched from outside
 * the service. A screenshot is kept in test-artifacts/ (ignored by git).
 */
import { expect } from 'chai';
import { mkdir } from 'node:fs/promises';
import { chromium, type Browser } from 'playwright-core';
import { OPERATIONS } from '../../src/api/operations.js';
import { startApp, type TestApp } from '../helpers/harness.js';

describe('GET /api/v3/docs in headless Chromium', () => {
  let app: TestApp;
  let browser: Browser;

  before(async function () {
    this.timeout(60_000);
    app = await startApp();
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
    });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('lists every operation, loading only the service’s own files', async function () {
    this.timeout(60_000);
    const page = await browser.newPage({ viewport: { width: 1280, height: 2000 } });
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const res = await page.goto(`${app.url}/api/v3/docs`);
    expect(res?.status()).to.equal(200);
    // An HTML page: helmet's headers, and the page works under its Content-Security-Policy (no errors below).
    const headers = res?.headers() ?? {};
    expect(headers['content-security-policy']).to.contain("script-src 'self'");
    expect(headers['x-frame-options']).to.equal('DENY');
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    const ids = await page.locator('.opblock').evaluateAll((els) => els.map((e) => e.id));
    for (const op of OPERATIONS) {
      expect(ids.some((id) => id.endsWith(`-${op.operationId}`)), op.operationId).to.equal(true);
    }
    expect(await page.locator('.info .title').innerText()).to.contain('Service Offer Brokering API');
    expect(requested.filter((u) => !u.startsWith(app.url))).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    await mkdir('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/api-docs.png', fullPage: false });
    await page.close();
  });
});
