import { expect } from 'chai';
import { Writable } from 'node:stream';
import { BusinessLine } from '../../src/db/entities/index.js';
import { loadDemoIfEmpty } from '../../src/provisioning/demo.js';
import { resetDb } from '../helpers/db.js';
import { makeApiUser } from '../helpers/factories.js';
import { basic, startApp, type TestApp } from '../helpers/harness.js';
import { rowCounts, snapshot } from '../helpers/provisioning.js';

/** A stream that keeps what is written to it. */
function sink(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString('utf8'));
      cb();
    },
  });
  return Object.assign(out, { text: () => chunks.join('') });
}

describe('demo data on an empty database (npm start)', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(async () => app.close());
  beforeEach(async () => resetDb(app.rt.orm));

  it('loads config/demo.json, prints working credentials, and does nothing the second time', async () => {
    const out = sink();
    expect(await loadDemoIfEmpty(app.rt, out)).to.equal(true);
    const text = out.text();
    expect(text).to.contain('aseguradora-demo / demo-secret-1');
    expect(text).to.contain('gruas-andinas / demo-secret-2  x-apikey: ga-demo-key-0123456789abcdef');
    expect(text).to.contain('operator     ops / change-me-now  (admin)');
    expect(text).to.contain("curl -u 'aseguradora-demo:demo-secret-1' http://localhost:0/api/v3/types");
    expect(text).to.contain('/api/v3/users/login');
    expect(text).to.contain('/admin/queues');
    expect(await rowCounts(app.rt.orm.em.fork())).to.include({ api_user: 2, central: 1, technician: 2, gazetteer: 34 });

    const types = await app.client.get('api/v3/types', { headers: { authorization: basic('aseguradora-demo', 'demo-secret-1') } });
    expect(types.statusCode).to.equal(200);
    expect((types.body as unknown as unknown[]).length).to.equal(3);
    const login = await app.client.post('api/v3/users/login', { json: { username: 'ops', password: 'change-me-now' } });
    expect(login.statusCode).to.equal(200);
    const token = (login.body as unknown as { data: { token: string } }).data.token;
    const board = await app.client.get('admin/queues', { headers: { authorization: `Bearer ${token}` }, responseType: 'text' });
    expect(board.statusCode).to.equal(200);

    const before = await snapshot(app.rt.orm.em.fork());
    const again = sink();
    expect(await loadDemoIfEmpty(app.rt, again)).to.equal(false);
    expect(again.text()).to.equal('');
    expect(await snapshot(app.rt.orm.em.fork())).to.deep.equal(before);
  });

  it('a database that already has an API user is left alone', async () => {
    await makeApiUser(app.rt.orm.em.fork());
    const out = sink();
    expect(await loadDemoIfEmpty(app.rt, out)).to.equal(false);
    expect(out.text()).to.equal('');
    expect(await app.rt.orm.em.fork().count(BusinessLine)).to.equal(0);
  });

  it('in production nothing is loaded', async () => {
    const out = sink();
    const prod = { ...app.rt, config: { ...app.rt.config, nodeEnv: 'production' as const } };
    expect(await loadDemoIfEmpty(prod, out)).to.equal(false);
    expect(out.text()).to.equal('');
    expect(await app.rt.orm.em.fork().count(BusinessLine)).to.equal(0);
  });
});
