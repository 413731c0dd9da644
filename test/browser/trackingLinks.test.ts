/**
 * The customer's links in headless Chromium (issue 29 items 6 and 9, D24):
 * - a share link opens a read-only page: the state, no technician, no
 *   position, no script and no socket;
 * - "Salir": two tabs of one customer follow the service live over the
 *   page's cookie socket (its Origin the page's own); "Salir" in one tab
 *   revokes the token server-side, so the other tab's socket is closed and a
 *   copy of the old cookie opens nothing any more.
 */
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { issueTrackingToken } from '../../src/domain/tracking/tokens.js';
import type { TestApp } from '../helpers/harness.js';
import { offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { refusal, wsUrl } from '../helpers/sockets.js';
import { signedCall } from '../helpers/integrity.js';
import { bodyOf } from '../helpers/ops.js';

const SECRET = 'integrity-secret-of-the-tests-0123456789';

describe('share links and "Salir" in headless Chromium (issue 29 items 6 and 9, D24)', function () {
  this.timeout(60000);
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  let browser: Browser;

  before(async () => {
    ({ app, gen, prov } = await startOps({ env: { INTEGRITY_SECRET: SECRET } }));
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

  it('a share link opens a read-only page: the state and the provider, no technician, no position, no script, no socket', async () => {
    const em = app.rt.orm.em.fork();
    await em.execute(`update technician set names = 'Carlos Pérez', lat = 4.6712, lng = -74.0601, position_at = now() where id = ?`, [prov.technician.id]);
    const offer = await offerIn(em, gen, 'EN_CAMINO', prov, { codigoServicio: 'SV-PUBL1C' });
    const { token } = await issueTrackingToken(em, offer);
    const shared = await signedCall(app.client, SECRET, { path: 'api/v3/tracking/share', json: { token } });
    const { path } = bodyOf(shared).data as { path: string };
    const context = await browser.newContext({ locale: 'es-CO' });
    const requests: string[] = [];
    context.on('request', (r) => requests.push(`${r.resourceType()} ${r.url()}`));
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}${path}`);
      await page.locator('p.state', { hasText: 'El técnico va en camino' }).waitFor();
      const text = await page.locator('body').innerText();
      expect(text).to.include(prov.central.name).and.not.include('Carlos').and.not.include('4.67120');
      expect(await page.locator('script, form, svg').count()).to.equal(0);
      expect(requests, 'the document alone: no script, no socket').to.deep.equal([`document ${app.url}${path}`]);
      expect(await context.cookies(app.url), 'no session is set').to.deep.equal([]);
    } finally {
      await context.close();
    }
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
