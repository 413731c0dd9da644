/**
 * The operator console's work queue and live map (issue 31 items 2 and 5, D23)
 * in headless Chromium, at a phone (390×844) and a desktop (1366×900) size:
 * the login keeps the deep link and lands on the console; the work queue shows
 * the active and stuck services with their facts in plain words and one time
 * zone; the map draws technicians, open offers and services on the way, with
 * a table view reached by keyboard; a position report (by the central's key,
 * then by the technician's own token) moves the technician on screen by the
 * projection's distance; "Reenviar" asks first (and asks more for the 6.1);
 * axe-core finds no serious or critical violation; no request leaves the
 * origin and the Content-Security-Policy holds. Screenshots under
 * test-artifacts/console-map/ (ignored by git).
 */
import { expect } from 'chai';
import { AxeBuilder } from '@axe-core/playwright';
import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { evaluateOffer } from '../../src/domain/offers/selection/evaluation.js';
import { dispatchAcceptance } from '../../src/domain/offers/selection/acceptanceNotification.js';
import { distanceMeters } from '../../src/http/views/assets/map.js';
import { makeApiUser, makeCentral, makeOperator, makeTechnician } from '../helpers/factories.js';
import type { TestApp } from '../helpers/harness.js';
import { bodyOf, makeProvider, offerIn, respond, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const OUT = 'test-artifacts/console-map';
const SIZES = [
  { name: 'telefono', viewport: { width: 390, height: 844 } },
  { name: 'escritorio', viewport: { width: 1366, height: 900 } },
] as const;

/** axe-core's serious and critical violations on the page as it is now (@axe-core/playwright injects it over CDP: the page's CSP stays on). */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations, passes } = await new AxeBuilder({ page }).analyze();
  expect(passes.length, 'axe-core ran its rules').to.be.greaterThan(10);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The SVG translate of a marker, in drawing units (the drawing is as wide as its box: one unit, one CSS pixel). */
async function markerAt(page: Page, id: string): Promise<{ x: number; y: number }> {
  const t = await page.locator(`#${id}`).getAttribute('transform');
  const m = /translate\(([-\d.]+) ([-\d.]+)\)/.exec(t ?? '');
  if (!m) throw new Error(`no marker ${id}`);
  return { x: Number(m[1]), y: Number(m[2]) };
}

describe('the operator console’s work queue and live map in headless Chromium (issue 31, D23)', function () {
  this.timeout(120000);
  let app: TestApp;
  let browser: Browser;
  let rcv: Receiver;
  let gen: Generator;
  let prov: Provider;
  let norte: Provider;
  let freeTechId: number;
  let offline: number;
  let enCamino: string;
  let resendOffer: string;
  const requests: string[] = [];
  const sockets: string[] = [];
  const cspErrors: string[] = [];

  before(async () => {
    rcv = await startReceiver([500]);
    const suite = await startOps({ provider: { name: 'Grúas del Sur' } });
    ({ app, prov } = suite);
    const em = () => app.rt.orm.em.fork();
    const made = await makeApiUser(suite.em, { businessName: 'Aseguradora Andina', urlApi: rcv.url, apiEndpoint: { respuesta: '/respuesta', estado: '/estado' }, webhookSecret: 'plain-secret' });
    gen = { user: made.user, password: made.password, auth: '', headers: { authorization: '' } };
    norte = await makeProvider(suite.em, { name: 'Grúas Norte' });
    // a market around Bogotá: a free technician, one not available, the provider's technician on its way
    const free = await makeTechnician(suite.em, norte.central, { names: 'Ana Libre', identifier: 'N-07', position: { lat: 4.7011, lng: -74.0431 } });
    freeTechId = free.id;
    offline = (await makeTechnician(suite.em, await makeCentral(suite.em, { name: 'Grúas Occidente' }), { names: 'Óscar Descanso', available: false, position: { lat: 4.6297, lng: -74.1469 } })).id;
    await em().execute(`update technician set names = 'Pedro Camino', lat = 4.6482, lng = -74.1012 where id = ?`, [prov.technician.id]);
    await em().execute(`update technician set position = st_setsrid(st_makepoint(lng, lat), 4326)::geography, position_at = now() where id = ?`, [prov.technician.id]);
    // an open offer (window open), a window late, a service on its way with chat and SMS, one assigned long ago, one finished with a failed notice
    await offerIn(suite.em, gen, 'ABIERTA', undefined, { deadlineAt: new Date(Date.now() + 10 * 60_000), originLat: 4.6871, originLng: -74.0562, direccionOrigen: 'Carrera 15 # 93-60' });
    const onWay = await offerIn(suite.em, gen, 'EN_CAMINO', prov, { codigoServicio: 'SV-MAPA01', originLat: 4.6656, originLng: -74.0587, direccionOrigen: 'Calle 100 # 15-20' });
    enCamino = onWay.uuid;
    await em().execute(`update technician set busy_offer_uuid = ? where id = ?`, [enCamino, prov.technician.id]);
    await em().execute(`insert into chat_message (offer_uuid, autor, texto) values (?, 'cliente', 'Estoy junto al puente'), (?, 'tecnico', 'Llego en 10 minutos')`, [enCamino, enCamino]);
    await em().execute(`insert into sms_message (id, offer_uuid, to_phone, body, provider, state, sent_at) values (?, ?, '+573001112233', 'Su código es 123456', 'outbox', 'sent', now())`, [randomUUID(), enCamino]);
    await offerIn(suite.em, gen, 'ASIGNADA', norte, { codigoServicio: 'SV-LENTO2', updatedAt: new Date(Date.now() - 2 * 3600_000), direccionOrigen: 'Avenida Boyacá # 80-10' });
    // an offer whose acceptance notice (6.1) failed, then a failed state notice: both resendable by an admin
    const offer = await offerIn(suite.em, gen, 'ABIERTA', undefined, { deadlineAt: new Date(Date.now() - 500), codigoServicio: 'SV-AVISO3' });
    resendOffer = offer.uuid;
    await respond(em(), offer, norte);
    expect(await evaluateOffer(app.rt, resendOffer)).to.equal('selected');
    const [d] = await em().execute<Array<{ id: string }>>(`select id from webhook_delivery where offer_uuid = ? and kind = 'acceptance'`, [resendOffer]);
    await dispatchAcceptance(app.rt, d.id); // the generator answers 500: failed, offer INACTIVA
    await em().execute(
      `insert into webhook_delivery (id, offer_uuid, kind, event_id, url, method, request_headers, request_body, state, attempts, status_code, created_at, completed_at)
       values (?, ?, 'state', ?, ?, 'PUT', '{}', '{"estado":"INACTIVA"}', 'failed', 1, 503, now(), now())`,
      [randomUUID(), resendOffer, `evt-${randomUUID()}`, `${rcv.url}/estado`],
    );
    await em().execute(`insert into service_survey (offer_uuid, rating) values (?, 4)`, [resendOffer]);
    // a window still open five minutes after its deadline (written after the evaluation above, which closes every due window)
    await offerIn(suite.em, gen, 'ABIERTA', undefined, { deadlineAt: new Date(Date.now() - 5 * 60_000), originLat: 4.6097, originLng: -74.0817, direccionOrigen: 'Calle 19 # 4-20' });
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'] });
    mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await rcv?.close();
  });

  async function context(viewport: { width: number; height: number }): Promise<BrowserContext> {
    const ctx = await browser.newContext({ viewport });
    ctx.on('request', (r) => requests.push(r.url()));
    ctx.on('page', (p) => {
      p.on('websocket', (ws) => sockets.push(ws.url()));
      p.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
      });
    });
    return ctx;
  }

  /** Asks for `path`, is sent to the login form, signs in and is brought back to `path`. */
  async function signIn(viewport: { width: number; height: number }, role: 'operator' | 'admin', path = '/admin/console'): Promise<Page> {
    const { operator, password } = await makeOperator(app.rt.orm.em.fork(), { role });
    const page = await (await context(viewport)).newPage();
    await page.goto(`${app.url}${path}`);
    await page.waitForURL(/\/admin\/login\?next=/);
    expect(new URL(page.url()).searchParams.get('next')).to.equal(path);
    await page.getByLabel('Usuario').fill(operator.username);
    await page.getByLabel('Contraseña').fill(password);
    await Promise.all([page.waitForURL(`${app.url}${path}`), page.getByRole('button', { name: 'Entrar' }).click()]);
    return page;
  }

  const live = (page: Page) => page.locator('#en-vivo[data-estado="si"]').waitFor();

  for (const size of SIZES) {
    it(`${size.name}: the work queue and the map show the market in plain words, one time zone, axe-clean`, async () => {
      const page = await signIn(size.viewport, 'operator');
      await live(page);
      const header = await page.locator('header').textContent();
      expect(header).to.include('Horas en America/Bogota').and.include('Cerrar sesión');
      // the work queue: stuck first, each with its facts
      const queue = page.locator('#cola');
      const onWay = queue.locator(`#cola-${enCamino}`);
      const row = await onWay.textContent();
      expect(row).to.include('SV-MAPA01').and.include('En camino').and.include('GRUA').and.include('Calle 100 # 15-20');
      expect(row).to.include('Aseguradora Andina').and.include('Grúas del Sur').and.include('Pedro Camino');
      expect(row).to.match(/4\.6\d{4}, -74\.\d{5}/).and.include('2 mensajes').and.include('1 enviados');
      expect(await queue.locator('tr', { hasText: 'SV-LENTO2' }).textContent()).to.include('Sin avance hace mucho');
      expect(await queue.locator('tr', { hasText: 'Calle 19 # 4-20' }).textContent()).to.include('La ventana de respuestas ya debía haberse cerrado');
      const notice = await queue.locator('tr', { hasText: 'SV-AVISO3' }).textContent();
      expect(notice).to.include('Avisos al generador o a la central fallidos').and.include('4 de 5');
      expect(await queue.locator('tbody tr.atascado').first().textContent(), 'stuck services first').to.not.include('SV-MAPA01');
      const text = (await page.locator('main').textContent()) ?? '';
      expect(text, 'no decision ids').to.not.match(/\bD\d{1,2}\b/);
      expect(text, 'no tax ids').to.not.match(/\bNIT\b/i).and.not.include(norte.central.nit);
      // the map: every technician, the open offers with their countdown, the service's route; the same in the table
      for (const id of [freeTechId, offline, prov.technician.id]) expect(await page.locator(`#tec-${id}`).count()).to.equal(1);
      expect(await page.locator('#mapa g.marcador.offer').count()).to.equal(2);
      expect(await page.locator(`#ruta-${enCamino}`).count()).to.equal(1);
      expect(await page.locator('#mapa .escala text').textContent()).to.match(/^\d+(,\d)? k?m$/);
      await page.locator('#tabla-ofertas [data-cierre]', { hasText: /^\d+:\d\d$/ }).first().waitFor();
      expect(await page.locator('#tabla-tecnicos').textContent()).to.include('Ana Libre').and.include('libre').and.include('no disponible').and.include('ocupado con un servicio');
      expect(await page.locator('#tabla-servicios').textContent()).to.include('SV-MAPA01').and.include('En camino').and.match(/\d,?\d* km/);
      expect(await page.locator('#mapa-resumen').textContent()).to.include('4 técnicos (2 libres, 1 ocupado, 1 no disponible)').and.include('2 ofertas abiertas');
      await page.screenshot({ path: `${OUT}/${size.name}-consola.png`, fullPage: true });
      await page.locator('#mapa-vivo').screenshot({ path: `${OUT}/${size.name}-mapa.png` });
      expect(await seriousViolations(page)).to.deep.equal([]);
      await page.context().close();
    });

    it(`${size.name}: the table view by keyboard, and a position report moves the technician by the projection's distance`, async () => {
      const page = await signIn(size.viewport, 'operator');
      await live(page);
      // Tab from the top reaches the map's table view (a focusable region), in the page's order
      let reached = false;
      for (let i = 0; i < 80 && !reached; i++) {
        await page.keyboard.press('Tab');
        reached = await page.evaluate(`document.activeElement?.id === 'datos-mapa'`);
      }
      expect(reached, 'the table view is reached with Tab').to.equal(true);
      await page.keyboard.press('ArrowDown'); // a focused region scrolls with the keyboard
      // the "only the table" switch, by keyboard: pressed, the focus goes to the table
      await page.locator('#ver-tabla').focus();
      await page.keyboard.press('Enter');
      expect(await page.locator('#ver-tabla').getAttribute('aria-pressed')).to.equal('true');
      expect(await page.evaluate(`document.activeElement?.id`)).to.equal('datos-mapa');
      expect(await page.locator('#lienzo').isVisible()).to.equal(false);
      await page.locator('#mapa-vivo').screenshot({ path: `${OUT}/${size.name}-solo-tabla.png` });
      await page.locator('#ver-tabla').focus();
      await page.keyboard.press('Space');
      expect(await page.locator('#ver-tabla').getAttribute('aria-pressed')).to.equal('false');
      await page.locator('#lienzo').waitFor({ state: 'visible' });

      await page.locator('body[data-dibujado]').waitFor({ state: 'attached' }); // drawn by the script at the box's size
      // the central reports its technician 1.5 km south-west (inside the view): the marker moves by that distance at the map's scale
      const id = `tec-${freeTechId}`;
      const before = await markerAt(page, id);
      const mppBefore = Number(await page.locator('#mapa').getAttribute('data-m-por-px'));
      const [from] = await app.rt.orm.em.fork().execute<Array<{ lat: number; lng: number }>>(`select lat, lng from technician where id = ?`, [freeTechId]);
      const to = { lat: Math.round((from.lat - 0.01) * 1e4) / 1e4, lng: Math.round((from.lng - 0.01) * 1e4) / 1e4 };
      const moved = await app.client.put('api/v3/posicion-tecnico', { headers: { 'x-apikey': norte.apiKey }, json: { dniTecnico: (await techDni(freeTechId)), latitud: to.lat, longitud: to.lng } });
      expect(moved.statusCode, JSON.stringify(moved.body)).to.equal(200);
      await page.locator(`#${id}:not([transform="translate(${before.x} ${before.y})"])`).waitFor({ state: 'attached' });
      const after = await markerAt(page, id);
      const mpp = Number(await page.locator('#mapa').getAttribute('data-m-por-px'));
      expect(mpp, 'the view keeps its scale while everything fits').to.equal(mppBefore);
      const px = Math.hypot(after.x - before.x, after.y - before.y);
      const ground = distanceMeters(from, to);
      expect(px * mpp).to.be.closeTo(ground, ground * 0.02 + mpp);
      expect(after.x, 'west is left').to.be.below(before.x);
      expect(after.y, 'south is down').to.be.above(before.y);
      await page.locator(`#fila-tec-${freeTechId} .pos`, { hasText: `${to.lat.toFixed(5)}, ${to.lng.toFixed(5)}` }).waitFor();
      // the work queue's "last position" of a busy technician moves live too
      await app.client.put('api/v3/posicion-tecnico', { headers: { 'x-apikey': prov.apiKey }, json: { dniTecnico: prov.technician.dni, latitud: 4.6512, longitud: -74.0952 } });
      await page.locator(`#cola-${enCamino} [data-tec-pos="${prov.technician.id}"]`, { hasText: '4.65120, -74.09520' }).waitFor();

      // the technician itself, with its own token (D20), reports again: the marker moves again
      const token = await app.client.post('api/v3/tecnicos/token', { headers: { 'x-apikey': norte.apiKey }, json: { dniTecnico: await techDni(freeTechId) } });
      expect(token.statusCode).to.equal(200);
      const again = await markerAt(page, id);
      const own = await app.client.put('api/v3/posicion-tecnico', { headers: { authorization: `Bearer ${(bodyOf(token) as { token: string }).token}` }, json: { dniTecnico: await techDni(freeTechId), latitud: to.lat + 0.005, longitud: to.lng + 0.005 } });
      expect(own.statusCode).to.equal(200);
      await page.locator(`#${id}:not([transform="translate(${again.x} ${again.y})"])`).waitFor({ state: 'attached' });
      await page.locator('#mapa-vivo').screenshot({ path: `${OUT}/${size.name}-mapa-movido.png` });
      await page.context().close();
    });

  }

  // last: resending turns the failed notices the work queue shows into delivered ones
  for (const size of SIZES) {
    it(`${size.name}: "Reenviar" asks first by keyboard; the 6.1, sent once, asks the admin to say they understand`, async () => {
      const page = await signIn(size.viewport, 'admin', `/admin/console/ofertas/${resendOffer}`);
      const calls = rcv.calls.length;
      const stateButton = page.getByRole('button', { name: /^Reenviar: Cambio de estado al generador/ });
      let reached = false;
      for (let i = 0; i < 120 && !reached; i++) {
        await page.keyboard.press('Tab');
        reached = await stateButton.evaluate((b) => b === b.ownerDocument.activeElement);
      }
      expect(reached, 'Reenviar is reached with Tab').to.equal(true);
      await page.keyboard.press('Enter');
      const dialog = page.locator('dialog#confirmar');
      await dialog.waitFor({ state: 'visible' });
      expect(await dialog.textContent()).to.include('mismo identificador');
      expect(await page.locator('#confirmar-entiendo').isVisible(), 'no extra question for a state notice').to.equal(false);
      expect(await seriousViolations(page)).to.deep.equal([]);
      await page.screenshot({ path: `${OUT}/${size.name}-confirmar.png` });
      await page.keyboard.press('Escape'); // cancelled: nothing sent
      await dialog.waitFor({ state: 'hidden' });
      expect(rcv.calls.length).to.equal(calls);
      await stateButton.focus();
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'visible' });
      await page.getByRole('button', { name: 'Sí, reenviar' }).focus();
      await Promise.all([page.waitForURL(/reenvio=ok$/), page.keyboard.press('Enter')]);
      await page.getByText('Entrega reenviada: el receptor respondió 2xx.').waitFor();
      expect(rcv.calls.length).to.equal(calls + 1);
      await page.goto(`${app.url}/admin/console/ofertas/${resendOffer}`); // a clean address, so the next redirect is told apart

      // the acceptance notice (6.1): the dialog explains it is sent once and wants the box ticked
      await page.getByRole('button', { name: /^Reenviar: Aviso de aceptación al generador/ }).focus();
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'visible' });
      expect(await dialog.textContent()).to.include('se envía una sola vez');
      await page.locator('#confirmar-entiendo').waitFor({ state: 'visible' });
      await page.screenshot({ path: `${OUT}/${size.name}-confirmar-6-1.png` });
      await page.getByRole('button', { name: 'Sí, reenviar' }).click();
      expect(await dialog.isVisible(), 'not without the box').to.equal(true);
      await page.getByLabel(/Entiendo que el generador recibirá/).focus();
      await page.keyboard.press('Space');
      await Promise.all([page.waitForURL(/reenvio=ok$/), page.getByRole('button', { name: 'Sí, reenviar' }).click()]);
      expect(rcv.calls.length).to.equal(calls + 2);
      await page.context().close();
    });
  }

  async function techDni(id: number): Promise<string> {
    const [r] = await app.rt.orm.em.fork().execute<Array<{ dni: string }>>(`select dni from technician where id = ?`, [id]);
    return r.dni;
  }

  it('nothing was fetched from outside the service, over HTTP or the socket, and the CSP held', () => {
    const origin = new URL(app.url);
    expect(requests.length).to.be.greaterThan(10);
    expect(requests.filter((u) => new URL(u).origin !== origin.origin)).to.deep.equal([]);
    expect(sockets.length).to.be.greaterThan(0);
    expect(sockets.filter((u) => new URL(u).host !== origin.host)).to.deep.equal([]);
    expect(cspErrors).to.deep.equal([]);
  });

  it('logs out: the cookie is gone and the console asks for the login again', async () => {
    const page = await signIn({ width: 1366, height: 900 }, 'operator');
    await Promise.all([page.waitForURL(/\/admin\/login\?salio=1$/), page.getByRole('button', { name: 'Cerrar sesión' }).click()]);
    await page.getByText('Cerró la sesión.').waitFor();
    expect(await seriousViolations(page)).to.deep.equal([]);
    await page.screenshot({ path: `${OUT}/login-salio.png` });
    await page.goto(`${app.url}/admin/console`);
    await page.waitForURL(/\/admin\/login\?next=/);
    await page.context().close();
  });
});
