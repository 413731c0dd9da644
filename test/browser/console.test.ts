/**
 * The operator console (issue 11, D15, D18) in headless Chromium: an operator
 * and an admin log in, find an offer by uuid and by codigoServicio, read its
 * ranking (why the winner won) and deliveries; the admin resends a failed
 * delivery and the receiver gets it again with the same webhook-id; the
 * operator has no resend button and a POST is refused. Screenshots under
 * test-artifacts/console/.
 */
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { evaluateOffer } from '../../src/domain/offers/selection/evaluation.js';
import { dispatchAcceptance } from '../../src/domain/offers/selection/acceptanceNotification.js';
import { signOperatorToken } from '../../src/auth/jwt.js';
import { makeApiUser, makeOperator } from '../helpers/factories.js';
import type { TestApp } from '../helpers/harness.js';
import { makeProvider, offerIn, respond, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const OUT = 'test-artifacts/console';

describe('the operator console in headless Chromium (issue 11)', function () {
  this.timeout(90000);
  let app: TestApp;
  let browser: Browser;
  let rcv: Receiver;
  let gen: Generator;
  let prov: Provider;
  let second: Provider;
  let uuid: string;
  let codigo: string;
  let deliveryId: string;

  before(async () => {
    rcv = await startReceiver([500]);
    const suite = await startOps({ provider: { name: 'Grúas Norte' } });
    ({ app, prov } = suite);
    const made = await makeApiUser(suite.em, { businessName: 'Aseguradora <b>Andina</b>', urlApi: rcv.url, apiEndpoint: { respuesta: '/respuesta' }, webhookSecret: 'plain-secret' });
    gen = { user: made.user, password: made.password, auth: '', headers: { authorization: '' } };
    second = await makeProvider(suite.em, { name: 'Grúas Sur' });
    const offer = await offerIn(suite.em, gen, 'ABIERTA', undefined, { deadlineAt: new Date(Date.now() - 500) });
    uuid = offer.uuid;
    await respond(app.rt.orm.em.fork(), offer, prov);
    const slower = await respond(app.rt.orm.em.fork(), offer, second);
    await app.rt.orm.em.fork().execute(`update offer_response set time_min = 25, time_given = false where id = ?`, [slower.id]);
    expect(await evaluateOffer(app.rt, uuid)).to.equal('selected');
    const [d] = await app.rt.orm.em.fork().execute<Array<{ id: string }>>(`select id from webhook_delivery where offer_uuid = ? and kind = 'acceptance'`, [uuid]);
    deliveryId = d.id;
    await dispatchAcceptance(app.rt, deliveryId); // the generator answers 500: failed, offer INACTIVA
    await app.rt.orm.em.fork().execute(`update offer set codigo_servicio = 'SV-CNS2T4' where uuid = ?`, [uuid]);
    codigo = 'SV-CNS2T4';
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'] });
    mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await app.close();
    await rcv.close();
  });

  async function signIn(role: 'operator' | 'admin'): Promise<Page> {
    const { operator, password } = await makeOperator(app.rt.orm.em.fork(), { role });
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${app.url}/admin/console`);
    await page.waitForURL(/\/admin\/login\?next=%2Fadmin%2Fconsole$/);
    await page.fill('#username', operator.username);
    await page.fill('#password', password);
    await Promise.all([page.waitForURL(/\/admin\/console$/), page.click('button[type=submit]')]);
    return page;
  }

  it('an operator finds the offer by uuid and by code, reads why the winner won and every delivery, and cannot resend', async () => {
    const page = await signIn('operator');
    await page.getByLabel('Identificador de la oferta o código de servicio').fill(uuid);
    await page.getByRole('button', { name: 'Buscar' }).click();
    await page.waitForURL(new RegExp(`/admin/console/ofertas/${uuid}$`));
    const winner = page.locator('tr.winner');
    await expect(await winner.textContent()).to.include('Grúas Norte').and.include('6 min (informado)').and.include('ganadora');
    expect(await page.locator('tr', { hasText: 'Grúas Sur' }).first().textContent()).to.include('25 min (estimado por distancia)');
    const delivery = page.locator('tr', { hasText: '/respuesta' });
    expect(await delivery.textContent()).to.include('fallida').and.include('500');
    expect(await page.getByRole('button', { name: /Reenviar/ }).count()).to.equal(0);
    expect(await page.content()).to.include('Aseguradora &lt;b&gt;Andina&lt;/b&gt;');
    await page.screenshot({ path: `${OUT}/operator-offer.png`, fullPage: true });
    await page.goto(`${app.url}/admin/console?q=${codigo.toLowerCase()}`);
    await page.waitForURL(new RegExp(`/admin/console/ofertas/${uuid}$`));
    const refused = await page.evaluate<number, string>(
      (url) => fetch(url, { method: 'POST' }).then((r) => r.status),
      `/admin/console/entregas/${deliveryId}/reenviar`,
    );
    expect(refused).to.equal(403);
    expect(rcv.calls).to.have.length(1);
    await page.context().close();
  });

  it('an admin resends the failed acceptance notification: the receiver gets it again, same webhook-id; the attempt is audited', async () => {
    const page = await signIn('admin');
    await page.goto(`${app.url}/admin/console/ofertas/${codigo}`);
    await page.screenshot({ path: `${OUT}/admin-before.png`, fullPage: true });
    await page.getByRole('button', { name: /Reenviar: Aviso de aceptación al generador/ }).click();
    // D23: the 6.1 is sent once by the spec: the admin confirms, saying they understand it goes a second time
    await page.getByLabel(/Entiendo que el generador recibirá/).check();
    await page.getByRole('button', { name: 'Sí, reenviar' }).click();
    await page.getByText('Entrega reenviada: el receptor respondió 2xx.').waitFor();
    await page.screenshot({ path: `${OUT}/admin-resent.png`, fullPage: true });
    expect(rcv.calls).to.have.length(2);
    expect(rcv.calls[1].headers['webhook-id']).to.be.a('string').and.equal(rcv.calls[0].headers['webhook-id']);
    expect(rcv.calls[1].raw).to.equal(rcv.calls[0].raw);
    const attempts = await app.rt.orm.em.fork().execute<Array<{ actor: string; status_code: number }>>(`select actor, status_code from webhook_attempt where delivery_id = ? order by id`, [deliveryId]);
    expect(attempts.map((a) => a.status_code)).to.deep.equal([500, 200]);
    expect(attempts[1].actor).to.match(/^operator:op-/);
    const [offer] = await app.rt.orm.em.fork().execute<Array<{ state: string }>>(`select state from offer where uuid = ?`, [uuid]);
    expect(offer.state, 'a resend changes no state').to.equal('INACTIVA');
    await page.context().close();
  });

  it('refuses a cross-site resend, and answers an unknown offer with 404', async () => {
    const { operator } = await makeOperator(app.rt.orm.em.fork(), { role: 'admin' });
    const jwt = await signOperatorToken(operator, app.rt.config.jwtSecret, '1h');
    const cross = await app.client.post(`admin/console/entregas/${deliveryId}/reenviar`, { headers: { cookie: `operator_token=${jwt}`, origin: 'https://evil.example' }, responseType: 'text' });
    expect(cross.statusCode).to.equal(403);
    const unknown = await app.client.get('admin/console/ofertas/SV-ZZZZZZ', { headers: { cookie: `operator_token=${jwt}` }, responseType: 'text' });
    expect(unknown.statusCode).to.equal(404);
  });
});
