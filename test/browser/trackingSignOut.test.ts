/**
 * "Salir" on the customer page (issue 29 item 9, D24) in headless Chromium:
 * two tabs of one customer follow the service live over the page's cookie
 * socket (its Origin the page's own); "Salir" in one tab revokes the token
 * server-side, so the other tab's socket is closed and a copy of the old
 * cookie opens nothing any more.
 */
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { issueTrackingToken } from '../../src/domain/tracking/tokens.js';
import type { TestApp } from '../helpers/harness.js';
import { offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { refusal, wsUrl } from '../helpers/sockets.js';

describe('the customer page’s "Salir" in headless Chromium (issue 29 item 9, D24)', function () {
  this.timeout(60000);
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  let browser: Browser;

  before(async () => {
    ({ app, gen, prov } = await startOps());
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
    });
  });
  after(async () => {
    await browser?.close();
    await app.close();
  });

  it('signs out every tab: the token is revoked and the other tab’s live socket closes', async () => {
    const em = app.rt.orm.em.fork();
    const offer = await offerIn(em, gen, 'ASIGNADA', prov, { codigoServicio: 'SV-SALIR2' });
    const { token } = await issueTrackingToken(em, offer);
    const context = await browser.newContext({ locale: 'es-CO' });
    await context.addCookies([{ name: 'seguimiento', value: token, url: app.url, httpOnly: true, sameSite: 'Strict' }]);
    try {
      const [one, two] = [await context.newPage(), await context.newPage()];
      for (const page of [one, two]) {
        await page.goto(`${app.url}/seguimiento`);
        // the page's socket opened with the cookie, from the page's own Origin
        await page.locator('body[data-en-vivo="si"]').waitFor({ state: 'attached' });
      }
      await one.getByRole('button', { name: 'Salir' }).click();
      await one.locator('form[action="/seguimiento/codigo"]').waitFor();
      // the other tab's socket was closed by the server (its cookie is gone, so it stays closed)
      await two.locator('body[data-en-vivo="no"]').waitFor({ state: 'attached' });
      expect(await context.cookies(app.url)).to.deep.equal([]);
      // a copy of the old cookie opens nothing: the token itself is revoked
      const copied = await refusal(wsUrl(app.url), { headers: { cookie: `seguimiento=${token}` }, origin: app.url });
      expect(copied.status).to.equal(401);
      const page = await app.client.get('seguimiento/parcial', { headers: { cookie: `seguimiento=${token}` }, responseType: 'text' });
      expect(page.statusCode).to.equal(401);
    } finally {
      await context.close();
    }
  });
});
