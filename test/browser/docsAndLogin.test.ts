/**
 * Issue 31 item 5: the API docs (GET /api/v3/docs, Swagger UI served from
 * node_modules) as an integrator judges them, and the operators' login
 * (/admin/login) as the operator at night does, in headless Chromium at a
 * phone (390×844) and a desktop (1366×900) size:
 * - docs: the getting-started walk (credentials → offer → answer → webhook)
 *   above the operations; POST /oferta reached and opened by keyboard, "Try it
 *   out" filling a realistic body (a service type of the catalog, Bogotá's
 *   coordinates, a phone) that the API itself accepts when executed with the
 *   generator's credentials; axe-core with no serious or critical violation;
 *   nothing fetched from outside the origin; the page works under its CSP.
 * - login: styled, labelled fields, the username focused, a wrong password
 *   told in an alert (the deep link kept), Enter submits, the console reached
 *   at the deep link; axe-core clean in both states.
 * Screenshots under test-artifacts/docs-login/ (ignored by git).
 */
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { makeOperator } from '../helpers/factories.js';
import type { TestApp } from '../helpers/harness.js';
import { offerIn, startOps, type Generator } from '../helpers/ops.js';

const OUT = 'test-artifacts/docs-login';
/**
 * What axe-core finds inside Swagger UI's own markup (swagger-ui-dist 5.35) that neither its configuration nor a
 * stylesheet can fix, scoped out for those elements only (DS-4): the request body editor of "Try it out"
 * (RequestBodyEditor renders a bare <textarea>, no label nor aria-label: rule "label") and the response examples'
 * picker (ExamplesSelect renders its <select> without a label when showLabels is off, as in the responses table:
 * rule "select-name").
 */
const SWAGGER_UI_OWN = [
  { rule: 'label', selector: 'textarea' },
  { rule: 'select-name', selector: '.examples-select-element' },
];

const SIZES = [
  { name: 'telefono', viewport: { width: 390, height: 844 }, isMobile: true },
  { name: 'escritorio', viewport: { width: 1366, height: 900 }, isMobile: false },
] as const;
type Size = (typeof SIZES)[number];

/** axe-core's serious and critical violations (rules scoped out for a selector listed in `exclude`). */
async function seriousViolations(page: Page, exclude: Array<{ rule: string; selector: string }> = []): Promise<string> {
  // Swagger UI's buttons fade their colours over 0.3 s (`transition: all .3s`): a button just clicked or re-rendered
  // would be measured half-way, between its two colours. Its transitions end first (an endless animation, a spinner,
  // is not waited for).
  await page.evaluate(`Promise.all(document.getAnimations()
    .filter((a) => a.effect && Number.isFinite(a.effect.getComputedTiming().endTime))
    .map((a) => a.finished.catch(() => undefined)))`);
  const { violations, passes } = await new AxeBuilder({ page }).analyze();
  expect(passes.length, 'axe-core ran its rules').to.be.greaterThan(10);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ ...v, nodes: v.nodes.filter((n) => !exclude.some((e) => e.rule === v.id && n.target.join(' ').includes(e.selector))) }))
    .filter((v) => v.nodes.length > 0)
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
    .join('\n');
}

describe('the API docs and the operators’ login in headless Chromium (issue 31 item 5)', function () {
  this.timeout(120000);
  let app: TestApp;
  let gen: Generator;
  let browser: Browser;
  let deepLink: string;
  let types: string[];

  before(async () => {
    const suite = await startOps();
    ({ app, gen } = suite);
    const offer = await offerIn(suite.em, gen, 'ABIERTA', undefined, { deadlineAt: new Date(Date.now() + 10 * 60_000), codigoServicio: 'SV-ENLACE' });
    deepLink = `/admin/console/ofertas/${offer.uuid}`;
    types = (await app.rt.orm.em.fork().execute<Array<{ id: number }>>('select id from service_type')).map((r) => String(r.id));
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'] });
    mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  /** A context at `size` that records every request leaving the origin, every page error and every CSP complaint. */
  async function open(size: Size): Promise<{ ctx: BrowserContext; page: Page; outside: string[]; errors: string[] }> {
    const ctx = await browser.newContext({ viewport: size.viewport, isMobile: size.isMobile, hasTouch: size.isMobile, locale: 'es-CO' });
    const page = await ctx.newPage();
    page.setDefaultTimeout(15000);
    const outside: string[] = [];
    const errors: string[] = [];
    ctx.on('request', (r) => {
      if (!r.url().startsWith(`${app.url}/`)) outside.push(r.url());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) errors.push(m.text());
    });
    return { ctx, page, outside, errors };
  }

  /** Presses Tab (from the top of the page) until `test` holds for the focused element; the number of presses, or -1. */
  async function tabTo(page: Page, test: string, max = 80): Promise<number> {
    for (let i = 1; i <= max; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate<boolean>(`(() => { const el = document.activeElement; return !!el && (${test}); })()`)) return i;
    }
    return -1;
  }

  for (const size of SIZES) {
    it(`${size.name}: the docs walk credentials → offer → answer → webhook, and POST /oferta's "Try it out" is realistic, by keyboard, axe-clean`, async () => {
      const { ctx, page, outside, errors } = await open(size);
      try {
        const res = await page.goto(`${app.url}/api/v3/docs`);
        expect(res?.status()).to.equal(200);
        const op = page.locator('#operations-Ofertas-createOffer');
        await op.waitFor();
        expect(await page.locator('html').getAttribute('lang'), 'the document is written in English').to.equal('en');

        // the getting-started walk, in its order, above the operations
        const info = page.locator('.information-container .info');
        expect(await info.getByRole('heading', { name: 'Getting started: credentials → offer → answer → webhook' }).count()).to.equal(1);
        const steps = await info.locator('ol > li').allInnerTexts();
        expect(steps.map((s) => /^(\w+)/.exec(s)?.[1])).to.deep.equal(['Credentials', 'Check', 'Offer', 'Answer', 'Webhook', 'The']);
        expect(steps[2]).to.include('POST /api/v3/oferta').and.include('GET /api/v3/types');
        expect(steps[3]).to.include('PUT /api/v3/aceptacion');
        expect(steps[4]).to.include('api_endpoint.respuesta').and.include('POST /api/v3/asignacion');
        expect((await info.boundingBox())!.y).to.be.lessThan((await op.boundingBox())!.y);
        expect(await seriousViolations(page), 'the docs page as it opens').to.equal('');
        await page.screenshot({ path: `${OUT}/${size.name}-1-docs-inicio.png` });
        await info.locator('ol').screenshot({ path: `${OUT}/${size.name}-2-docs-primeros-pasos.png` });

        // keyboard only: from the top, Tab reaches POST /oferta's summary, Enter opens it
        await page.evaluate('document.activeElement && document.activeElement.blur()');
        const presses = await tabTo(page, "el.matches('#operations-Ofertas-createOffer .opblock-summary-control')");
        expect(presses, 'Tab reaches POST /oferta').to.be.greaterThan(0);
        const focusRing = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
        expect(focusRing, 'the focused operation shows it').to.not.equal('none');
        await page.keyboard.press('Enter');
        await page.locator('#operations-Ofertas-createOffer.is-open').waitFor();
        expect(await op.locator('.opblock-summary-control').getAttribute('aria-expanded')).to.equal('true');
        expect(await tabTo(page, "el.matches('#operations-Ofertas-createOffer .try-out__btn')", 30), 'Tab reaches "Try it out"').to.be.greaterThan(0);
        await page.keyboard.press('Enter');

        // the body "Try it out" fills: a service type of the catalog, a place in Bogotá, no pattern samples, no 0,0
        const textarea = op.locator('textarea.body-param__text');
        await textarea.waitFor();
        const body = JSON.parse(await textarea.inputValue()) as Record<string, unknown>;
        expect(types, 'tipoServicio is a type of GET /types').to.include(body.tipoServicio);
        expect(body.latitudOrigen).to.be.within(4.45, 4.85);
        expect(body.longitudOrigen).to.be.within(-74.25, -73.95);
        expect(body.direccionOrigen).to.match(/Bogotá/);
        expect(body.telefonoCliente).to.match(/^\+57 3\d{2} \d{3} \d{4}$/);
        expect(body.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        const leaves = (o: Record<string, unknown>, at = ''): Array<[string, unknown]> =>
          Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v as Record<string, unknown>, `${at}${k}.`) : [[`${at}${k}`, v] as [string, unknown]]));
        for (const [k, v] of leaves(body)) {
          expect(v, k).to.not.equal('string');
          expect(String(v), `${k}: no pattern sample, no 0`).to.not.match(/[\^$\\[\]{}]|^0$/);
        }
        expect(await seriousViolations(page, SWAGGER_UI_OWN), 'POST /oferta open, trying it out').to.equal('');
        await textarea.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${OUT}/${size.name}-3-docs-probar-oferta.png` });

        // executed with the generator's credentials (Authorize → basicAuth), the API takes that body as it is
        await page.locator('.auth-wrapper button.authorize').click();
        const basic = page.locator('.modal-ux .auth-container', { hasText: 'basicAuth' });
        await basic.locator('input[name=username]').fill(gen.user.username);
        await basic.locator('input[name=password]').fill(gen.password);
        await basic.locator('button.modal-btn.authorize').click();
        await basic.getByText('Authorized').waitFor();
        await basic.locator('button.btn-done').click();
        await op.locator('button.execute').click();
        const status = op.locator('.live-responses-table .response .response-col_status').first();
        await status.waitFor();
        expect((await status.innerText()).trim()).to.equal('200');
        const [row] = await app.rt.orm.em.fork().execute<Array<{ uuid: string; origin_lat: number }>>('select uuid, origin_lat from offer where uuid = ?', [body.uuid]);
        expect(row, 'the offer made from the docs').to.not.equal(undefined);
        expect(await seriousViolations(page, SWAGGER_UI_OWN), 'POST /oferta executed').to.equal('');
        await status.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${OUT}/${size.name}-3b-docs-oferta-ejecutada.png` });
        expect(outside, 'nothing leaves the origin').to.deep.equal([]);
        expect(errors).to.deep.equal([]);
      } finally {
        await ctx.close();
      }
    });

    it(`${size.name}: the login is styled and labelled, says a wrong password, submits with Enter and lands on the deep link, axe-clean`, async () => {
      const { operator, password } = await makeOperator(app.rt.orm.em.fork());
      const { ctx, page, outside, errors } = await open(size);
      try {
        // a deep link into the console sends to the login, which keeps it
        await page.goto(`${app.url}${deepLink}`);
        await page.waitForURL(/\/admin\/login\?next=/);
        expect(new URL(page.url()).searchParams.get('next')).to.equal(deepLink);
        const user = page.getByLabel('Usuario');
        const pass = page.getByLabel('Contraseña');
        expect(await page.getByRole('heading', { name: 'Iniciar sesión' }).count()).to.equal(1);
        expect(await page.evaluate<string | undefined>('document.activeElement && document.activeElement.id'), 'the username is focused').to.equal('username');
        // styled: a card on a dark page, a filled button, the form not stretched across a desktop screen
        const look = await page.evaluate<{ body: string; form: string; button: string; width: number }>(`(() => {
          const s = (sel, p) => getComputedStyle(document.querySelector(sel))[p];
          return { body: s('body', 'backgroundColor'), form: s('form', 'backgroundColor'), button: s('button', 'backgroundColor'), width: document.querySelector('form').getBoundingClientRect().width };
        })()`);
        expect(look.body).to.not.equal('rgba(0, 0, 0, 0)');
        expect(look.form).to.equal('rgb(255, 255, 255)');
        expect(look.button).to.not.equal('rgba(0, 0, 0, 0)');
        expect(look.width).to.be.within(300, 420);
        expect(await seriousViolations(page), 'the login form').to.equal('');
        await page.screenshot({ path: `${OUT}/${size.name}-4-login.png` });

        // a wrong password, typed and sent with Enter: an alert, the deep link still carried, the user focused again
        await user.fill(operator.username);
        await page.keyboard.press('Tab');
        expect(await page.evaluate<string | undefined>('document.activeElement && document.activeElement.id')).to.equal('password');
        await page.keyboard.type('no-es-la-clave');
        await Promise.all([page.waitForURL(/\/admin\/login/), page.waitForEvent('load'), page.keyboard.press('Enter')]);
        const alert = page.getByRole('alert');
        expect((await alert.innerText()).trim()).to.equal('Usuario o contraseña incorrectos.');
        expect(await page.locator('form').getAttribute('aria-describedby')).to.equal('login-error');
        expect(await page.locator('input[name=next]').inputValue()).to.equal(deepLink);
        expect(await page.evaluate<string | undefined>('document.activeElement && document.activeElement.id'), 'ready to type again').to.equal('username');
        expect(await seriousViolations(page), 'the login with its error').to.equal('');
        await page.screenshot({ path: `${OUT}/${size.name}-5-login-error.png` });

        // the right one, with Enter: the console, at the deep link
        await user.fill(operator.username);
        await pass.fill(password);
        await Promise.all([page.waitForURL(`${app.url}${deepLink}`), pass.press('Enter')]);
        expect(await page.locator('main').innerText()).to.include('SV-ENLACE');
        expect(await page.getByRole('button', { name: 'Cerrar sesión' }).count()).to.equal(1);
        await page.screenshot({ path: `${OUT}/${size.name}-6-consola.png` });
        expect(outside, 'nothing leaves the origin').to.deep.equal([]);
        expect(errors).to.deep.equal([]);
      } finally {
        await ctx.close();
      }
    });
  }
});
