import { expect } from 'chai';
import { SignJWT } from 'jose';
import { AUTH_MESSAGES, OPERATOR_LOGIN_REQUIRED, basicOrJwtAuth } from '../../src/http/auth/index.js';
import { JWT_AUDIENCE, JWT_ISSUER } from '../../src/auth/jwt.js';
import { ADMIN_LOGIN_MESSAGES } from '../../src/http/routes/adminLogin.js';
import { LOGIN_MESSAGES } from '../../src/http/routes/users.js';
import { QUEUE_NAMES } from '../../src/queues/registry.js';
import { resetDb } from '../helpers/db.js';
import { expectSystemEnvelope, type Body } from '../helpers/envelopes.js';
import { makeApiUser, makeOperator } from '../helpers/factories.js';
import { startApp, basic, type TestApp } from '../helpers/harness.js';
import { serveMini, type MiniApp } from '../helpers/miniApp.js';

const cookieOf = (setCookie: string[] | undefined): string | undefined =>
  setCookie?.map((c) => /^operator_token=[^;]+/.exec(c)?.[0]).find(Boolean);

/** A token for an operator that is not in the database (id 999999, 'ghost'). */
async function signed(secret: string, claims: { exp: number; iat: number }): Promise<string> {
  return new SignJWT({ username: 'ghost', role: 'admin' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('999999')
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setIssuedAt(claims.iat)
    .setExpirationTime(claims.exp)
    .sign(new TextEncoder().encode(secret));
}

describe('operators (D15): login, JWT, Bull Board', () => {
  let app: TestApp;
  let username: string;
  let password: string;
  let token: string;
  const now = () => Math.floor(Date.now() / 1000);

  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
    const made = await makeOperator(app.rt.orm.em.fork(), { role: 'admin' });
    username = made.operator.username;
    password = made.password;
  });
  after(async () => app.close());

  describe('POST /api/v3/users/login', () => {
    it('issues a JWT and the httpOnly operator cookie', async () => {
      const res = await app.client.post('api/v3/users/login', { json: { username, password } });
      expect(res.statusCode).to.equal(200);
      const body = res.body as unknown as { status: boolean; msg: string; data: Body };
      expect(body).to.include({ status: true, msg: LOGIN_MESSAGES.ok });
      expect(body.data).to.include({ tokenType: 'Bearer', expiresIn: '8h' });
      expect(body.data.user).to.deep.equal({ username, role: 'admin' });
      token = body.data.token as string;
      expect(token.split('.')).to.have.length(3);
      const cookie = res.headers['set-cookie']?.find((c) => c.startsWith('operator_token='));
      expect(cookie).to.match(/httponly/i).and.to.match(/samesite=strict/i);
    });

    it('401 for a wrong password or an unknown operator', async () => {
      for (const json of [{ username, password: 'wrong' }, { username: 'nobody', password }]) {
        const res = await app.client.post('api/v3/users/login', { json });
        expect(res.statusCode).to.equal(401);
        expect(res.body).to.deep.equal({ status: false, msg: LOGIN_MESSAGES.invalid });
      }
    });

    it('400 when the username or the password is missing', async () => {
      const res = await app.client.post('api/v3/users/login', { json: { username } });
      expect(res.statusCode).to.equal(400);
      expect(res.body).to.deep.equal({ status: false, msg: LOGIN_MESSAGES.missing });
    });

    it('an API user\'s Basic credentials are not an operator login', async () => {
      const api = await makeApiUser(app.rt.orm.em.fork());
      const res = await app.client.post('api/v3/users/login', { json: { username: api.user.username, password: api.password } });
      expect(res.statusCode).to.equal(401);
    });
  });

  describe('Bull Board at /admin/queues', () => {
    it('accepts the JWT as Bearer and lists every queue of the registry through its API', async () => {
      const res = await app.client.get('admin/queues/api/queues', { headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).to.equal(200);
      const names = (res.body as unknown as { queues: Array<{ name: string }> }).queues.map((q) => q.name);
      expect(names).to.have.members([...QUEUE_NAMES]);
      expect(names).to.have.length(QUEUE_NAMES.length);
    });

    it('serves its HTML to the operator cookie', async () => {
      const res = await app.client.get('admin/queues', {
        headers: { cookie: `operator_token=${token}`, accept: 'text/html' },
        responseType: 'text',
      });
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-type']).to.match(/^text\/html/);
      expect(res.body).to.match(/<html/i);
    });

    const refused: Array<[string, () => Promise<string>]> = [
      ['no token', async () => ''],
      ['a malformed token', async () => 'Bearer not.a.jwt'],
      ['a token signed with another secret', async () => `Bearer ${await signed('another-secret', { iat: now(), exp: now() + 600 })}`],
      ['an expired token', async () => `Bearer ${await signed(app.rt.config.jwtSecret, { iat: now() - 7200, exp: now() - 3600 })}`],
    ];
    refused.push(['a valid token of an operator who no longer exists', async () => `Bearer ${await signed(app.rt.config.jwtSecret, { iat: now(), exp: now() + 600 })}`]);
    for (const [what, header] of refused) {
      it(`answers 401 JSON to ${what}`, async () => {
        const authorization = await header();
        const res = await app.client.get('admin/queues/api/queues', { headers: authorization ? { authorization } : {} });
        expect(res.statusCode).to.equal(401);
        expect(res.body).to.deep.equal({ status: false, msg: OPERATOR_LOGIN_REQUIRED });
      });
    }

    it('sends a browser without a valid token to the login page', async () => {
      const res = await app.client.get('admin/queues', {
        headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', cookie: 'operator_token=expired.or.forged' },
        responseType: 'text',
      });
      expect(res.statusCode).to.equal(302);
      expect(res.headers.location, 'the form brings the browser back (D23)').to.equal('/admin/login?next=%2Fadmin%2Fqueues');
    });
  });

  describe('the login page /admin/login', () => {
    it('shows a form that posts username and password', async () => {
      const res = await app.client.get('admin/login', { responseType: 'text' });
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-type']).to.match(/^text\/html/);
      expect(res.body).to.match(/<form method="post" action="\/admin\/login">/);
      expect(res.body).to.include('name="username"').and.to.include('name="password"');
    });

    it('logs in with the form: sets the httpOnly cookie and redirects to the console (D23), and the board then opens', async () => {
      const res = await app.client.post('admin/login', { form: { username, password }, responseType: 'text' });
      expect(res.statusCode).to.equal(303);
      expect(res.headers.location).to.equal('/admin/console');
      expect(res.headers['set-cookie']?.join(';')).to.match(/httponly/i);
      const cookie = cookieOf(res.headers['set-cookie']);
      const board = await app.client.get('admin/queues', { headers: { cookie: cookie!, accept: 'text/html' }, responseType: 'text' });
      expect(board.statusCode).to.equal(200);
    });

    it('shows the form again with 401 for wrong credentials, and 400 for missing ones', async () => {
      const wrong = await app.client.post('admin/login', { form: { username, password: 'nope' }, responseType: 'text' });
      expect(wrong.statusCode).to.equal(401);
      expect(wrong.body).to.include(ADMIN_LOGIN_MESSAGES.invalid);
      expect(wrong.headers['set-cookie']).to.equal(undefined);
      const missing = await app.client.post('admin/login', { form: { username }, responseType: 'text' });
      expect(missing.statusCode).to.equal(400);
      expect(missing.body).to.include(ADMIN_LOGIN_MESSAGES.missing);
    });
  });

  describe('Basic or JWT (POST /finalize, spec 4.4 and 5.3)', () => {
    let mini: MiniApp;
    before(async () => {
      mini = await serveMini(app.rt, (router) =>
        router.post('/finalize', basicOrJwtAuth(() => app.rt.orm.em.fork(), '/finalize', app.rt.config.jwtSecret), (ctx) => {
          ctx.body = { operator: ctx.state.operator?.username ?? null, apiUser: ctx.state.apiUser?.username ?? null };
        }),
      );
    });
    after(async () => mini.close());

    it('accepts an operator\'s Bearer token', async () => {
      const res = await mini.client.post('finalize', { headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).to.equal(200);
      expect(res.body).to.deep.equal({ operator: username, apiUser: null });
    });

    it('refuses a bad or expired token with 4.4\'s 401 body', async () => {
      for (const t of ['garbage', await signed(app.rt.config.jwtSecret, { iat: now() - 7200, exp: now() - 3600 })]) {
        const res = await mini.client.post('finalize', { headers: { authorization: `Bearer ${t}` } });
        expect(res.statusCode).to.equal(401);
        expect(res.body).to.deep.equal({ status: false, msg: AUTH_MESSAGES.basicInvalid });
      }
    });

    it('falls back to HTTP Basic, with 5.1\'s system envelope on failure', async () => {
      const api = await makeApiUser(app.rt.orm.em.fork());
      const ok = await mini.client.post('finalize', { headers: { authorization: basic(api.user.username, api.password) } });
      expect(ok.body).to.deep.equal({ operator: null, apiUser: api.user.username });
      const missing = await mini.client.post('finalize');
      expect(missing.statusCode).to.equal(401);
      expectSystemEnvelope(missing.body, AUTH_MESSAGES.basicMissing);
    });
  });
});
