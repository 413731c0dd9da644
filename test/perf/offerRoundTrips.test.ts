/**
 * Issue 12.1: POST /oferta on its common path, once the generator's
 * credentials are cached: one statement to PostgreSQL (the offer and its
 * audit row) and, to Redis, the failed-authentication limit's read and the
 * two jobs (distribution now, evaluation at the deadline). Counted at the
 * drivers; not a timing.
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { resetDb } from '../helpers/db.js';
import { makeServiceType } from '../helpers/factories.js';
import { startApp, type TestApp } from '../helpers/harness.js';
import { makeGenerator, offerBody } from '../helpers/offers.js';
import { clearQueues } from '../helpers/queues.js';
import { statementsOf } from '../helpers/statements.js';

/** The Redis commands sent while `fn` runs (every ioredis client of this process), by name. */
async function redisCommandsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const proto = Redis.prototype as unknown as { sendCommand: (cmd: { name: string }, ...rest: unknown[]) => unknown };
  const original = proto.sendCommand;
  const seen: string[] = [];
  proto.sendCommand = function (this: unknown, cmd: { name: string }, ...rest: unknown[]) {
    seen.push(cmd.name);
    return original.call(this, cmd, ...rest);
  };
  try {
    await fn();
  } finally {
    proto.sendCommand = original;
  }
  return seen;
}

describe('POST /oferta: round trips on the common path (issue 12.1)', () => {
  let app: TestApp;

  before(async () => {
    app = await startApp({ env: { AUTH_CACHE_TTL_MS: '60000' } });
    await resetDb(app.rt.orm);
    await makeServiceType(app.rt.orm.em.fork(), { id: 1 });
  });
  after(async () => {
    await clearQueues(app.rt);
    await app.close();
  });

  it('one statement to PostgreSQL and three Redis commands (one read, two jobs) once the credentials are cached', async () => {
    const generator = await makeGenerator(app.rt.orm.em.fork());
    const post = () => app.client.post('api/v3/oferta', { headers: generator.headers, json: offerBody() });
    expect((await post()).statusCode).to.equal(200); // warms the credential cache
    let status = 0;
    let redis: string[] = [];
    const statements = await statementsOf(async () => {
      redis = await redisCommandsOf(async () => {
        status = (await post()).statusCode;
      });
    });
    expect(status).to.equal(200);
    expect(statements, statements.join('\n---\n')).to.have.length(1);
    // the failed-authentication limit's counts and trust marker in one MGET; the two jobs
    expect(redis, redis.join(', ')).to.deep.equal(['mget', 'evalsha', 'evalsha']);
  });
});
