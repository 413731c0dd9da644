import type { EntityManager } from '@mikro-orm/postgresql';
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { AUTH_MESSAGES, apiKeyAuth, authenticateApiKey } from '../../src/http/auth/index.js';
import { HttpError } from '../../src/envelopes.js';
import { resetDb } from '../helpers/db.js';
import { expectKeyEnvelope } from '../helpers/envelopes.js';
import { makeApiUser } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { serveMini, type MiniApp } from '../helpers/miniApp.js';
import { stubMethod } from '../helpers/stub.js';

const newKey = () => `key-${randomBytes(12).toString('hex')}`;

/** The HttpError `authenticateApiKey` throws for `key`. */
async function refusal(em: EntityManager, key: string | undefined): Promise<HttpError> {
  const err = await authenticateApiKey(em, key, '/aceptacion').then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).to.be.instanceOf(HttpError);
  return err as HttpError;
}

describe('x-apikey validator (spec 5.2)', () => {
  let app: TestApp;
  let em: EntityManager;
  before(async () => {
    app = await startApp();
    await resetDb(app.rt.orm);
  });
  beforeEach(() => {
    em = app.rt.orm.em.fork();
  });
  after(async () => app.close());

  it('401 when the header is missing', async () => {
    const err = await refusal(em, undefined);
    expect(err.status).to.equal(401);
    expectKeyEnvelope(err.body, AUTH_MESSAGES.keyMissing);
  });

  it('401 for an unknown key', async () => {
    const err = await refusal(em, newKey());
    expect(err.status).to.equal(401);
    expectKeyEnvelope(err.body, AUTH_MESSAGES.keyInvalid);
  });

  it('401 "not correct" for a key shared by two users', async () => {
    const key = newKey();
    await makeApiUser(em, { apiKey: key });
    await makeApiUser(em, { apiKey: key });
    const err = await refusal(em, key);
    expect(err.status).to.equal(401);
    expectKeyEnvelope(err.body, 'La clave de acceso no es correcta.');
  });

  it('401 for an INACTIVO user, with advice to contact the administrator', async () => {
    const key = newKey();
    await makeApiUser(em, { apiKey: key, status: 'INACTIVO' });
    const err = await refusal(em, key);
    expect(err.status).to.equal(401);
    expectKeyEnvelope(err.body, AUTH_MESSAGES.keyInactive);
    expect(AUTH_MESSAGES.keyInactive).to.match(
      /^La solicitud no puede ser completada, debido a que el estado del usuario de API es 'INACTIVO'.+administrador/,
    );
  });

  it('403 when the endpoint is not allowed, naming the allowed and the requested endpoints', async () => {
    const key = newKey();
    await makeApiUser(em, { apiKey: key, endpoints: ['/oferta', '/types'] });
    const err = await refusal(em, key);
    expect(err.status).to.equal(403);
    expectKeyEnvelope(err.body, AUTH_MESSAGES.keyForbidden, {
      allowedEndpoints: ['/oferta', '/types'],
      requestedEndpoint: '/aceptacion',
    });
    expect(AUTH_MESSAGES.keyForbidden).to.match(
      /^La solicitud no puede ser completada, debido a que no tiene permiso de acceso a este endpoint.+administrador/,
    );
  });

  it('the user of a valid key with the endpoint allowed', async () => {
    const key = newKey();
    const { user } = await makeApiUser(em, { apiKey: key, endpoints: ['/aceptacion'] });
    const found = await authenticateApiKey(em, key, '/aceptacion');
    expect(found.id).to.equal(user.id);
  });

  it('500 when the lookup itself fails', async () => {
    const restore = stubMethod(em, 'find', (async () => {
      throw new Error('connection lost');
    }) as unknown as EntityManager['find']);
    try {
      const err = await refusal(em, newKey());
      expect(err.status).to.equal(500);
      expectKeyEnvelope(err.body, AUTH_MESSAGES.keyInternal);
    } finally {
      restore();
    }
  });

  describe('over HTTP (apiKeyAuth + the real error middleware)', () => {
    let mini: MiniApp;
    before(async () => {
      mini = await serveMini(app.rt, (router) =>
        router.put('/api/v3/aceptacion', apiKeyAuth(() => app.rt.orm.em.fork(), '/aceptacion'), (ctx) => {
          ctx.body = { status: true, data: ctx.state.apiUser?.username };
        }),
      );
    });
    after(async () => mini.close());

    it('answers the missing key with 401 and the validator envelope', async () => {
      const res = await mini.client.put('api/v3/aceptacion', { json: {} });
      expect(res.statusCode).to.equal(401);
      expectKeyEnvelope(res.body, AUTH_MESSAGES.keyMissing);
    });

    it('answers a forbidden endpoint with 403, allowedEndpoints and requestedEndpoint', async () => {
      const key = newKey();
      await makeApiUser(em, { apiKey: key, endpoints: ['/oferta'] });
      const res = await mini.client.put('api/v3/aceptacion', { json: {}, headers: { 'x-apikey': key } });
      expect(res.statusCode).to.equal(403);
      expectKeyEnvelope(res.body, AUTH_MESSAGES.keyForbidden, { allowedEndpoints: ['/oferta'], requestedEndpoint: '/aceptacion' });
    });

    it('lets a valid key through to the handler', async () => {
      const key = newKey();
      const { user } = await makeApiUser(em, { apiKey: key });
      const res = await mini.client.put('api/v3/aceptacion', { json: {}, headers: { 'x-apikey': key } });
      expect(res.statusCode).to.equal(200);
      expect(res.body).to.deep.equal({ status: true, data: user.username });
    });
  });
});
