/**
 * The customer page (GET /seguimiento, D14) walked in a real browser (headless
 * Chromium through playwright-core) on a phone-sized screen, as a customer
 * would: expediente and phone, the SMS code read from the outbox table, the
 * follow-up updated live (EN_CAMINO and the technician's position without a
 * reload), the chat both ways, and the survey once the service is finished.
 * The first form is also filled with the keyboard only. No request leaves
 * the service's origin (no map tiles, no fonts). Screenshots of each step go
 * to test-artifacts/tracking/ (ignored by git).
 */
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Technician } from '../../src/db/entities/index.js';
import type { TestApp } from '../helpers/harness.js';
import { signedCall } from '../helpers/integrity.js';
import { bodyOf, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { waitFor } from '../helpers/wait.js';

const OUT = 'test-artifacts/tracking';
const SECRET = 'integrity-secret-of-the-tests-0123456789';

describe('the customer page in headless Chromium (issue 9, D14)', function () {
  this.timeout(90000);
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  let browser: Browser;

  before(async () => {
    ({ app, gen, prov } = await startOps({ env: { INTEGRITY_SECRET: SECRET }, workers: true }));
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
    });
    mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await app.close();
  });

  const em = () => app.rt.orm.em.fork();
  const smsCode = async (phone: string): Promise<string> => {
    const row = await waitFor(async () => {
      const [r] = await em().execute<Array<{ body: string; state: string }>>(`select body, state from sms_message where to_phone = ? order by created_at desc limit 1`, [phone]);
      return r?.state === 'sent' ? r : undefined;
    });
    return /código de seguimiento es ([0-9]{6})/.exec(row.body)![1];
  };
  /** A directly assigned service with the customer's phone, to the provider's technician. */
  const assignedService = async (phone: string) => {
    const uuid = randomUUID();
    const res = await app.client.post('api/v3/asignacion-directa', {
      headers: { authorization: gen.auth },
      json: {
        uuid,
        tipoServicio: '1',
        latitudOrigen: 4.6533,
        longitudOrigen: -74.0836,
        direccionOrigen: 'Calle 72 # 10-34',
        telefonoCliente: phone,
        dniPrestador: prov.central.nit,
        dniTecnico: prov.technician.dni,
      },
    });
    expect(res.statusCode).to.equal(200);
    return { uuid, codigo: String(bodyOf(res).codigoServicio) };
  };
  const shot = (page: Page, name: string) => page.screenshot({ path: `${OUT}/${name}.png`, fullPage: true });

  it('walks the whole page as a customer: code by SMS, live follow-up, chat both ways, survey', async () => {
    await em().execute(`update technician set names = 'Carlos Pérez', phone = '+573105550000' where id = ?`, [prov.technician.id]);
    const { uuid, codigo } = await assignedService('+57 300 765 4321');
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'es-CO' });
    const outside: string[] = [];
    const page = await context.newPage();
    page.on('request', (r) => {
      if (!r.url().startsWith(app.url) && !r.url().startsWith(app.url.replace('http', 'ws'))) outside.push(r.url());
    });
    try {
      await page.goto(`${app.url}/seguimiento`);
      expect(await page.getAttribute('html', 'lang')).to.equal('es');
      await page.getByLabel('Número de expediente').fill(codigo);
      await page.getByLabel('Teléfono celular').fill('300 765 4321');
      await shot(page, '1-inicio');
      await page.getByRole('button', { name: 'Enviar código' }).click();
      await page.getByLabel('Código de 6 dígitos').waitFor();
      await shot(page, '2-codigo');
      await page.getByLabel('Código de 6 dígitos').fill(await smsCode('+573007654321'));
      await page.getByRole('button', { name: 'Ver mi servicio' }).click();
      await page.locator('p.state', { hasText: 'Servicio asignado' }).waitFor();
      await page.locator('dd', { hasText: 'Carlos' }).first().waitFor(); // the first name only (issue 31)
      const cookies = await context.cookies();
      expect(cookies.find((c) => c.name === 'seguimiento')).to.include({ httpOnly: true, sameSite: 'Strict' });
      expect(await page.evaluate<string>('document.cookie')).to.not.include('seguimiento');
      // a selector, not waitForFunction: its polling compiles the predicate in the page, which the page's CSP
      // (no 'unsafe-eval') refuses whenever the first check is not already true
      await page.locator('body[data-en-vivo="si"]').waitFor({ state: 'attached' });
      await shot(page, '3-seguimiento');

      // live: EN_CAMINO and the technician's position, without reloading
      const moved = await app.client.put('api/v3/estado-servicio', { headers: { 'x-apikey': prov.apiKey }, json: { id: uuid, estado: 'EN_CAMINO' } });
      expect(moved.statusCode).to.equal(200);
      await page.locator('p.state', { hasText: 'El técnico va en camino' }).waitFor();
      await app.client.put('api/v3/posicion-tecnico', { headers: { 'x-apikey': prov.apiKey }, json: { dniTecnico: prov.technician.dni, latitud: 4.6712, longitud: -74.0601 } });
      await page.locator('#marca-tecnico[data-lat="4.6712"]').waitFor();
      expect(await page.locator('svg[role=img]').count()).to.equal(1);
      await page.getByText('Llegada estimada').waitFor();
      await shot(page, '4-en-camino');

      // chat: the technician writes (signed API), the customer reads live and answers in the page
      const fromTech = await signedCall(app.client, SECRET, {
        path: `api/v3/chat/${codigo}/messages`,
        json: { texto: 'Voy en camino, llego en 10 minutos' },
        headers: { 'x-apikey': prov.apiKey, 'x-dni-tecnico': prov.technician.dni },
      });
      expect(fromTech.statusCode).to.equal(200);
      await page.locator('#mensajes li.tecnico', { hasText: 'Voy en camino, llego en 10 minutos' }).waitFor();
      await page.getByLabel('Escriba al técnico').fill('Gracias, estoy junto al carro gris');
      await page.getByRole('button', { name: 'Enviar mensaje' }).click();
      await page.locator('#mensajes li.cliente', { hasText: 'Gracias, estoy junto al carro gris' }).waitFor();
      const history = await signedCall(app.client, SECRET, {
        path: `api/v3/chat/${codigo}/messages`,
        headers: { 'x-apikey': prov.apiKey, 'x-dni-tecnico': prov.technician.dni },
      });
      const texts = (bodyOf(history).data as { messages: Array<{ autor: string; texto: string; leidoEn: string | null }> }).messages;
      expect(texts.map((m) => [m.autor, m.texto])).to.deep.equal([
        ['tecnico', 'Voy en camino, llego en 10 minutos'],
        ['cliente', 'Gracias, estoy junto al carro gris'],
      ]);
      expect(texts[0].leidoEn, 'the page marked the technician’s message read').to.be.a('string');
      await shot(page, '5-chat');

      // finished: the survey appears live; the customer answers it
      const finalized = await app.client.post('api/v3/finalize', { headers: { authorization: gen.auth }, json: { uuid } });
      expect(finalized.statusCode).to.equal(200);
      await page.getByText('¿Cómo fue el servicio?').waitFor();
      await page.getByLabel('4', { exact: true }).check();
      await page.getByLabel('Comentario (opcional)').fill('Muy amable');
      await shot(page, '6-encuesta');
      await page.getByRole('button', { name: 'Enviar calificación' }).click();
      await page.getByText('¡Gracias! Ya recibimos su calificación.').waitFor();
      await shot(page, '7-gracias');
      const [survey] = await em().execute<Array<{ rating: number; comment: string }>>(`select rating, comment from service_survey where offer_uuid = ?`, [uuid]);
      expect(survey).to.deep.equal({ rating: 4, comment: 'Muy amable' });
      const tech = await em().findOneOrFail(Technician, prov.technician.id);
      expect(tech.rate).to.equal((4.5 + 4) / 2);
      expect(outside).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('the first form works with the keyboard only, and a wrong code is told next to the field, in Spanish', async () => {
    const { codigo } = await assignedService('3009998877');
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/seguimiento`);
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement && document.activeElement.id')).to.equal('expediente');
      await page.keyboard.type(codigo);
      await page.keyboard.press('Tab');
      await page.keyboard.type('3009998877');
      await page.keyboard.press('Enter');
      await page.getByLabel('Código de 6 dígitos').waitFor();
      await smsCode('+573009998877');
      await page.getByLabel('Código de 6 dígitos').fill('000000');
      await page.keyboard.press('Enter');
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').textContent()).to.equal('EL CÓDIGO NO ES VÁLIDO O YA EXPIRÓ; SOLICITE UNO NUEVO');
      // the error sits after the field it is about and is tied to it for screen readers
      const code = page.getByLabel('Código de 6 dígitos');
      expect(await code.getAttribute('aria-invalid')).to.equal('true');
      expect(await code.getAttribute('aria-describedby')).to.include('code-error');
      await shot(page, '8-codigo-incorrecto');
    } finally {
      await context.close();
    }
  });

  it('refuses a cross-site form post, and escapes what it shows', async () => {
    const cross = await app.client.post('seguimiento/codigo', {
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'expediente=SV-AAAAAA&telefono=3001112233',
      responseType: 'text',
    });
    expect(cross.statusCode).to.equal(403);
    const xss = await app.client.post('seguimiento/codigo', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `expediente=${encodeURIComponent('<script>alert(1)</script>')}&telefono=3001112233`,
      responseType: 'text',
    });
    expect(xss.statusCode).to.equal(200);
    expect(String(xss.body)).to.include('&lt;script&gt;alert(1)&lt;/script&gt;').and.not.include('<script>alert(1)');
    expect(xss.headers['content-security-policy']).to.include("script-src 'self'");
  });
});
