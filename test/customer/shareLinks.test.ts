/**
 * Issue 29 items 6 and 9 (D24): a share link is its own read-only token
 * (POST /tracking/share → `pub_…`) that reads the public follow-up only,
 * without the technician (name, phone, position) or addresses, and opens
 * nothing else (chat, socket, page, survey, another link); the customer's
 * token no longer reads the public view. "Salir" (and POST /tracking/revoke)
 * revokes the customer's token server-side and closes its open sockets; the
 * token never travels in a socket URL (`?tracking=` is refused).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Offer } from '../../src/db/entities/index.js';
import { TRACKING_MESSAGES } from '../../src/api/customer/messages.js';
import { issueTrackingToken, MAX_SHARE_LINKS } from '../../src/domain/tracking/tokens.js';
import type { TestApp } from '../helpers/harness.js';
import { signedCall } from '../helpers/integrity.js';
import { bodyOf, offerIn, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { connect, refusal, wsUrl } from '../helpers/sockets.js';

const SECRET = 'integrity-secret-of-the-tests-0123456789';
type Body = Record<string, unknown>;

describe('share links and sign-out (issue 29 items 6 and 9, D24)', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;

  before(async () => {
    ({ app, gen, prov } = await startOps({ env: { INTEGRITY_SECRET: SECRET } }));
  });
  after(async () => app.close());

  const em = () => app.rt.orm.em.fork();
  const call = (path: string, json?: unknown, headers: Record<string, string> = {}, method?: 'GET' | 'POST' | 'PUT') =>
    signedCall(app.client, SECRET, { path: `api/v3/${path}`, json, headers, method: method ?? (json === undefined ? 'GET' : 'POST') });
  const code = () => `SV-${randomUUID().replace(/[^A-HJKMNP-TV-Z2-9]/gi, '').toUpperCase().slice(0, 6).padEnd(6, 'X')}`;
  /** A service on its way, its technician's position known: what the share link must not show. */
  const onTheWay = async (): Promise<{ offer: Offer; token: string }> => {
    const offer = await offerIn(em(), gen, 'EN_CAMINO', prov, { codigoServicio: code(), direccionOrigen: 'Calle 100 # 15-20', ciudad: 'Bogotá', departamento: 'Cundinamarca' });
    await em().execute(`update technician set lat = 4.6584, lng = -74.0937, position_at = now() where id = ?`, [prov.technician.id]);
    return { offer, token: (await issueTrackingToken(em(), offer)).token };
  };
  const shareOf = async (token: string): Promise<string> => {
    const r = await call('tracking/share', { token });
    expect(r.statusCode).to.equal(200);
    const data = bodyOf(r).data as { token: string; expiresAt: string };
    expect(data.token).to.match(/^pub_[A-Za-z0-9_-]{43}$/);
    return data.token;
  };

  it('a share link reads the public follow-up: no technician, no position, no phone, no address', async () => {
    const { offer, token } = await onTheWay();
    const share = await shareOf(token);
    const pub = await call('tracking/track/public', { token: share });
    expect(pub.statusCode).to.equal(200);
    const service = (bodyOf(pub).data as { service: Body }).service;
    expect(service).to.include({ estado: 'EN_CAMINO', codigoServicio: offer.codigoServicio, tecnico: null, posicionTecnico: null });
    expect(service.origen).to.deep.equal({ ciudad: 'Bogotá', departamento: 'Cundinamarca' });
    const text = JSON.stringify(service);
    for (const secret of [prov.technician.names.split(' ')[0], '4.6584', '-74.0937', 'Calle 100', 'telefono']) expect(text).to.not.include(secret);
    // the customer's own token is no share link: the public view refuses it, saying so
    const own = await call('tracking/track/public', { token });
    expect([own.statusCode, bodyOf(own).msg]).to.deep.equal([401, TRACKING_MESSAGES.notAShareLink]);
  });

  it('the link’s page shows the public follow-up, read-only (no script, no socket), kept out of Referer', async () => {
    const { offer, token } = await onTheWay();
    const r = await call('tracking/share', { token });
    const { token: share, path, url } = bodyOf(r).data as { token: string; path: string; url: string | null };
    expect([path, url]).to.deep.equal([`/seguimiento/publico/${share}`, null]);
    const page = await app.client.get(path.slice(1), { responseType: 'text' });
    expect(page.statusCode).to.equal(200);
    expect(page.headers['referrer-policy']).to.equal('no-referrer');
    expect(page.headers['x-robots-tag']).to.equal('noindex');
    expect(page.body).to.include('El técnico va en camino').and.include(String(offer.codigoServicio));
    for (const hidden of ['<script', '<form', prov.technician.names.split(' ')[0], '4.65840', 'Calle 100']) expect(page.body).to.not.include(hidden);
    for (const bad of [`seguimiento/publico/${token}`, `seguimiento/publico/pub_${'Z'.repeat(43)}`, 'seguimiento/publico/%00']) {
      const gone = await app.client.get(bad, { responseType: 'text' });
      expect([gone.statusCode, gone.body.includes('Enlace no válido')], bad).to.deep.equal([404, true]);
    }
  });

  it('a share link opens nothing else: chat, socket, page, survey, another link', async () => {
    const { offer, token } = await onTheWay();
    const share = await shareOf(token);
    const chat = await call(`chat/${offer.codigoServicio}/messages`, { texto: 'hola' }, { authorization: `Bearer ${share}` });
    expect(chat.statusCode).to.equal(401);
    const read = await call(`chat/${offer.codigoServicio}/messages`, undefined, { authorization: `Bearer ${share}` });
    expect(read.statusCode).to.equal(401);
    expect((await refusal(wsUrl(app.url), { headers: { authorization: `Bearer ${share}` } })).status).to.equal(401);
    expect((await refusal(wsUrl(app.url), { headers: { cookie: `seguimiento=${share}` }, origin: app.url })).status).to.equal(401);
    const page = await app.client.get('seguimiento', { headers: { cookie: `seguimiento=${share}` }, responseType: 'text' });
    expect(page.body).to.include('action="/seguimiento/codigo"').and.not.include(prov.technician.names);
    expect((await app.client.get('seguimiento/parcial', { headers: { cookie: `seguimiento=${share}` }, responseType: 'text' })).statusCode).to.equal(401);
    expect((await call('tracking/surveyresponse', { token: share, rating: 5 })).statusCode).to.equal(401);
    expect((await call('tracking/share', { token: share })).statusCode).to.equal(401);
    expect((await call('tracking/revoke', { token: share })).statusCode, 'revoking with it does nothing').to.equal(200);
    expect((await call('tracking/track/public', { token: share })).statusCode).to.equal(200);
  });

  it(`at most ${MAX_SHARE_LINKS} live share links per service (then 429 with Retry-After)`, async () => {
    const { token } = await onTheWay();
    for (let i = 0; i < MAX_SHARE_LINKS; i++) await shareOf(token);
    const more = await call('tracking/share', { token });
    expect([more.statusCode, bodyOf(more).msg]).to.deep.equal([429, TRACKING_MESSAGES.tooManyShareLinks(MAX_SHARE_LINKS)]);
    expect(Number(more.headers['retry-after'])).to.be.greaterThan(0);
  });

  it('"Salir" revokes the token server-side and closes its open sockets (4401); the page forgets the cookie', async () => {
    const { offer, token } = await onTheWay();
    const byHeader = await connect(wsUrl(app.url), { headers: { authorization: `Bearer ${token}` } });
    const byCookie = await connect(wsUrl(app.url), { headers: { cookie: `seguimiento=${token}` }, origin: app.url });
    const other = await onTheWay();
    const bystander = await connect(wsUrl(app.url), { headers: { authorization: `Bearer ${other.token}` } });
    const closed = Promise.all([byHeader.closed(), byCookie.closed()]);
    const out = await app.client.post('seguimiento/salir', { headers: { cookie: `seguimiento=${token}` }, responseType: 'text' });
    expect(out.statusCode).to.equal(303);
    expect(String(out.headers['set-cookie'])).to.match(/seguimiento=;/);
    expect(await closed).to.deep.equal([4401, 4401]);
    expect((await call(`chat/${offer.codigoServicio}/messages`, undefined, { authorization: `Bearer ${token}` })).statusCode).to.equal(401);
    expect((await refusal(wsUrl(app.url), { headers: { authorization: `Bearer ${token}` } })).status).to.equal(401);
    expect((await app.client.get('seguimiento/parcial', { headers: { cookie: `seguimiento=${token}` }, responseType: 'text' })).statusCode).to.equal(401);
    // another customer's socket stays
    bystander.send('ping', {}, 'still');
    await bystander.next('pong');
    await bystander.close();
  });

  it('POST /tracking/revoke does the same for API clients, and answers the same for a token that names nothing', async () => {
    const { token } = await onTheWay();
    const s = await connect(wsUrl(app.url), { headers: { authorization: `Bearer ${token}` } });
    const closed = s.closed();
    const r = await call('tracking/revoke', { token });
    expect([r.statusCode, bodyOf(r)]).to.deep.equal([200, { status: true, msg: TRACKING_MESSAGES.revoked }]);
    expect(await closed).to.equal(4401);
    expect((await call('tracking/share', { token })).statusCode).to.equal(401);
    const again = await call('tracking/revoke', { token });
    expect([again.statusCode, bodyOf(again)]).to.deep.equal([200, { status: true, msg: TRACKING_MESSAGES.revoked }]);
  });

  it('a tracking token in the socket URL is refused (400, saying where it goes); the header opens it', async () => {
    const { token } = await onTheWay();
    const inUrl = await refusal(`${wsUrl(app.url)}?tracking=${token}`);
    expect([inUrl.status, inUrl.body]).to.deep.equal([400, { status: false, msg: TRACKING_MESSAGES.tokenInUrl }]);
    const s = await connect(wsUrl(app.url), { headers: { authorization: `Bearer ${token}` } });
    await s.close();
  });
});
