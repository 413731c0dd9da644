/**
 * GET /metrics (D19): operators only (JWT, session cookie or METRICS_TOKEN);
 * each metric moves after the event that should move it; a scrape on one
 * process includes what another process published.
 */
import { expect } from 'chai';
import nock from 'nock';
import { Counter, Registry } from 'prom-client';
import { evaluateOffer } from '../../src/domain/offers/selection/evaluation.js';
import { dispatchAcceptance } from '../../src/domain/offers/selection/acceptanceNotification.js';
import { metricsKey } from '../../src/metrics/metrics.js';
import type { TestApp } from '../helpers/harness.js';
import { GENERATOR_URL, offerIn, respond, startOps, type Generator, type Provider } from '../helpers/ops.js';
import { RESPUESTA_PATH } from '../helpers/factories.js';
import { connect, makeOperatorToken, wsUrl } from '../helpers/sockets.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN = 'scraper-token-of-the-tests-0123';

/** The value of one sample (name and exact label set in Prometheus text), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels);
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (wanted.every(([k, v]) => got[k] === v) && Object.keys(got).length === wanted.length) return Number(m[3]);
  }
  return 0;
}

describe('GET /metrics (D19)', () => {
  let app: TestApp;
  let gen: Generator;
  let prov: Provider;
  let jwt: string;

  before(async () => {
    ({ app, gen, prov } = await startOps({ env: { METRICS_TOKEN: TOKEN } }));
    jwt = await makeOperatorToken(app.rt.orm.em.fork(), app.rt.config.jwtSecret);
  });
  after(async () => {
    nock.cleanAll();
    await app.close();
  });

  const scrape = async (authorization = `Bearer ${TOKEN}`) => {
    const res = await app.client.get('metrics', { headers: { authorization }, responseType: 'text' });
    expect(res.statusCode).to.equal(200);
    expect(res.headers['content-type']).to.include('text/plain');
    return String(res.body);
  };

  it('is for operators and the scraper only: 401 in the system envelope otherwise', async () => {
    for (const authorization of ['', 'Bearer wrong-token-wrong-token', gen.auth, 'Bearer a.b.c']) {
      const res = await app.client.get('metrics', { headers: authorization ? { authorization } : {} });
      expect(res.statusCode, authorization).to.equal(401);
      expect(res.body).to.include({ error: true, message: 'Las métricas son para operadores: inicie sesión o use METRICS_TOKEN.' });
    }
    expect(await scrape(`Bearer ${jwt}`)).to.include('http_request_duration_seconds');
    const cookie = await app.client.get('metrics', { headers: { cookie: `operator_token=${jwt}` }, responseType: 'text' });
    expect(cookie.statusCode).to.equal(200);
  });

  it('moves: requests by declared route and status, selection lateness, deliveries by kind and outcome, queue depths, sockets', async () => {
    const before = await scrape();
    const health = { method: 'GET', route: '/health', status: '200' };
    await app.client.get('health');
    await app.client.get('api/v3/chat/SV-AAAAAA/stats');

    nock(GENERATOR_URL).put(RESPUESTA_PATH).reply(200, { status: true });
    const offer = await offerIn(app.rt.orm.em.fork(), gen, 'ABIERTA', undefined, { deadlineAt: new Date(Date.now() - 200) });
    await respond(app.rt.orm.em.fork(), offer, prov);
    expect(await evaluateOffer(app.rt, offer.uuid)).to.equal('selected');
    const [d] = await app.rt.orm.em.fork().execute<Array<{ id: string }>>(`select id from webhook_delivery where offer_uuid = ? and kind = 'acceptance'`, [offer.uuid]);
    await dispatchAcceptance(app.rt, d.id);

    await app.rt.queues.add('offer-evaluation', 'evaluate', { offerUuid: '00000000-0000-4000-8000-00000000abcd' }, { delay: 3_600_000 });
    const socket = await connect(wsUrl(app.url), { headers: gen.headers });
    try {
      const after = await waitFor(async () => {
        const text = await scrape();
        return sample(text, 'broker_sockets', { kind: 'generator' }) >= 1 ? text : null;
      });
      expect(sample(after, 'http_request_duration_seconds_count', health)).to.be.greaterThan(sample(before, 'http_request_duration_seconds_count', health));
      expect(sample(after, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/v3/chat/:expediente/stats', status: '401' })).to.be.at.least(1);
      expect(after).to.not.include('SV-AAAAAA');
      expect(sample(after, 'broker_offer_selection_lateness_seconds_count')).to.equal(sample(before, 'broker_offer_selection_lateness_seconds_count') + 1);
      const ok = { kind: 'acceptance', outcome: 'ok' };
      expect(sample(after, 'broker_webhook_deliveries_total', ok)).to.equal(sample(before, 'broker_webhook_deliveries_total', ok) + 1);
      expect(sample(after, 'broker_queue_jobs', { queue: 'offer-evaluation', state: 'delayed' })).to.be.at.least(1);
      expect(after).to.include('process_cpu_user_seconds_total');
    } finally {
      await socket.close();
      await app.rt.queues.get('offer-evaluation').remove('evaluate-00000000-0000-4000-8000-00000000abcd');
    }
  });

  it('merges what other processes published (a worker’s deliveries), and drops a process gone quiet', async () => {
    const other = new Registry();
    const c = new Counter({ name: 'broker_webhook_deliveries_total', help: 'x', labelNames: ['kind', 'outcome'], registers: [other] });
    c.inc({ kind: 'novedad', outcome: 'failed' }, 7);
    const key = metricsKey(app.rt.config.queuePrefix);
    const before = sample(await scrape(), 'broker_webhook_deliveries_total', { kind: 'novedad', outcome: 'failed' });
    await app.rt.redis.hset(key, 'worker:424242', JSON.stringify({ at: Date.now(), metrics: await other.getMetricsAsJSON() }));
    expect(sample(await scrape(), 'broker_webhook_deliveries_total', { kind: 'novedad', outcome: 'failed' })).to.equal(before + 7);
    await app.rt.redis.hset(key, 'worker:424242', JSON.stringify({ at: Date.now() - 60_000, metrics: await other.getMetricsAsJSON() }));
    expect(sample(await scrape(), 'broker_webhook_deliveries_total', { kind: 'novedad', outcome: 'failed' })).to.equal(before);
    expect(await app.rt.redis.hexists(key, 'worker:424242')).to.equal(0);
  });
});
