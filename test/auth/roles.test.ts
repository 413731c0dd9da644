/**
 * Operators' roles (D15): an `operator` sees Bull Board read-only, an `admin`
 * acts; the login form refuses cross-site posts (login CSRF); the HTML pages
 * send helmet's security headers.
 */
import { expect } from 'chai';
import type { Response } from 'got';
import { ADMIN_MESSAGES } from '../../src/http/routes/admin.js';
import { ADMIN_LOGIN_MESSAGES } from '../../src/http/routes/adminLogin.js';
import { signOperatorToken } from '../../src/auth/jwt.js';
import { jobId } from '../../src/queues/registry.js';
import { makeOperator } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';

type QueueView = { name: string; readOnlyMode: boolean };

function expectPageHeaders(res: Response<unknown>) {
  const csp = String(res.headers['content-security-policy']);
  expect(csp).to.include("default-src 'self'").and.to.include("script-src 'self'").and.to.include("frame-ancestors 'none'");
  expect(csp).to.include("object-src 'none'").and.not.to.include('upgrade-insecure-requests');
  expect(res.headers['x-frame-options']).to.equal('DENY');
  expect(res.headers['x-content-type-options']).to.equal('nosniff');
  expect(res.headers['referrer-policy']).to.equal('same-origin');
  expect(res.headers['cross-origin-opener-policy']).to.equal('same-origin');
  expect(res.headers['strict-transport-security']).to.match(/max-age=\d+/);
  expect(res.headers['x-powered-by']).to.equal(undefined);
}

describe('operators\' roles, cross-site requests and page headers (D15)', () => {
  let app: TestApp;
  let admin: string;
  let viewer: string;
  let viewerLogin: { username: string; password: string };

  before(async () => {
    app = await startApp({ env: { QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_roles` } });
    const em = app.rt.orm.em.fork();
    const a = await makeOperator(em, { role: 'admin' });
    const o = await makeOperator(em, { role: 'operator' });
    admin = await signOperatorToken(a.operator, app.rt.config.jwtSecret, '1h');
    viewer = await signOperatorToken(o.operator, app.rt.config.jwtSecret, '1h');
    viewerLogin = { username: o.operator.username, password: o.password };
  });
  after(async () => app.close());

  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

  describe('Bull Board', () => {
    const id = jobId('evaluate', '00000000-0000-4000-8000-000000000001');
    before(async () => {
      await app.rt.queues.add('offer-evaluation', 'evaluate', { offerUuid: '00000000-0000-4000-8000-000000000001' }, { jobId: id, delay: 3_600_000 });
    });
    after(async () => app.rt.queues.get('offer-evaluation').remove(id));

    it('shows an operator every queue read-only, an admin with actions', async () => {
      const seen = await app.client.get('admin/queues/api/queues', { headers: bearer(viewer) });
      expect(seen.statusCode).to.equal(200);
      const queues = (seen.body as unknown as { queues: QueueView[] }).queues;
      expect(queues.length).to.be.above(0);
      expect(queues.every((q) => q.readOnlyMode)).to.equal(true);
      const full = await app.client.get('admin/queues/api/queues', { headers: bearer(admin) });
      expect((full.body as unknown as { queues: QueueView[] }).queues.every((q) => !q.readOnlyMode)).to.equal(true);
    });

    it('refuses an operator\'s job action 403 (the job stays delayed); an admin\'s is done', async () => {
      const queue = app.rt.queues.get('offer-evaluation');
      const action = `admin/queues/api/queues/${encodeURIComponent(queue.name)}/${id}/promote`;
      for (const [method, path] of [
        ['PUT', action],
        ['PUT', 'admin/queues/api/queues/pause'],
        ['PUT', `admin/queues/api/queues/${encodeURIComponent(queue.name)}/obliterate`],
        ['POST', `admin/queues/api/queues/${encodeURIComponent(queue.name)}/add`],
      ] as const) {
        const res = await app.client(path, { method, headers: bearer(viewer), json: {} });
        expect(res.statusCode, `${method} ${path}`).to.equal(403);
        expect(res.body).to.deep.equal({ status: false, msg: ADMIN_MESSAGES.readOnly });
      }
      expect(await queue.getJobState(id)).to.equal('delayed');

      const done = await app.client.put(action, { headers: bearer(admin) });
      expect(done.statusCode).to.be.within(200, 204);
      expect(await queue.getJobState(id)).to.equal('waiting');
    });

    it('refuses a cross-site action even from an admin', async () => {
      const queue = app.rt.queues.get('offer-evaluation');
      const res = await app.client.put(`admin/queues/api/queues/${encodeURIComponent(queue.name)}/pause`, {
        headers: { ...bearer(admin), 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      });
      expect(res.statusCode).to.equal(403);
      expect(res.body).to.deep.equal({ status: false, msg: ADMIN_MESSAGES.crossSite });
      expect(await queue.isPaused()).to.equal(false);
    });
  });

  describe('the login form against cross-site requests', () => {
    const post = (headers: Record<string, string>) =>
      app.client.post('admin/login', { form: viewerLogin, headers, responseType: 'text' });

    it('refuses a post from another site (Sec-Fetch-Site, or Origin when that is absent): 403, no cookie, not counted', async () => {
      for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }] as Array<Record<string, string>>) {
        const res = await post(headers);
        expect(res.statusCode, JSON.stringify(headers)).to.equal(403);
        expect(res.body).to.include(ADMIN_LOGIN_MESSAGES.crossSite);
        expect(res.headers['set-cookie']).to.equal(undefined);
        expect(res.headers['x-ratelimit-remaining']).to.equal(undefined);
      }
    });

    it('accepts a post from its own page (same-origin, or the own Origin), and a client that sends neither', async () => {
      for (const headers of [{ 'sec-fetch-site': 'same-origin', origin: app.url }, { origin: app.url }, {}] as Array<Record<string, string>>) {
        const res = await post(headers);
        expect(res.statusCode, JSON.stringify(headers)).to.equal(303);
        expect(res.headers['set-cookie']?.join(';')).to.match(/operator_token=.*samesite=strict/i);
      }
    });
  });

  describe('security headers', () => {
    it('are sent with the login page, its answers and Bull Board', async () => {
      expectPageHeaders(await app.client.get('admin/login', { responseType: 'text' }));
      expectPageHeaders(await app.client.post('admin/login', { form: { username: 'x', password: 'y' }, responseType: 'text' }));
      const board = await app.client.get('admin/queues', { headers: { ...bearer(viewer), accept: 'text/html' }, responseType: 'text' });
      expect(board.statusCode).to.equal(200);
      expect(board.headers['content-type']).to.match(/^text\/html/);
      expectPageHeaders(board);
      expectPageHeaders(await app.client.get('admin/queues/api/queues', { headers: bearer(viewer) }));
    });
  });
});
