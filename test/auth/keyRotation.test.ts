/**
 * API keys at rest (issue 29 item 4b, 4d; D24): provisioning stores only a
 * key's SHA-256 and the lookup goes by it; a new key keeps the previous one
 * valid for API_KEY_GRACE_S, then the previous one is refused; keys and
 * passwords shorter than the minimums are refused with a clear message; the
 * outbound key is its own secret.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { AUTH_MESSAGES, authenticateApiKey } from '../../src/http/auth/index.js';
import { apiKeyHash } from '../../src/auth/passwords.js';
import { HttpError } from '../../src/envelopes.js';
import { provision, type ProvisionResult } from '../../src/provisioning/index.js';
import { configTargets } from '../../src/webhooks/targets.js';
import { resetDb } from '../helpers/db.js';
import { expectKeyEnvelope } from '../helpers/envelopes.js';
import { startApp, type TestApp } from '../helpers/harness.js';

const newKey = () => `key-${randomBytes(16).toString('hex')}`;

/** A central's API user as provisioning takes it. */
const userDoc = (o: { apiKey?: string; outboundKey?: string; password?: string } = {}) => ({
  username: 'central-rotacion',
  password: o.password ?? 'a-long-enough-password',
  status: 'ACTIVO' as const,
  endpoints: ['/aceptacion'],
  businessName: 'Central Rotación',
  ...(o.apiKey === undefined ? {} : { apiKey: o.apiKey }),
  ...(o.outboundKey === undefined ? {} : { outboundKey: o.outboundKey }),
});

describe('API keys at rest and their rotation (issue 29 item 4; D24)', () => {
  let app: TestApp;
  const em = (): EntityManager => app.rt.orm.em.fork();
  const run = (doc: unknown, graceS: number): Promise<ProvisionResult> => provision(em(), doc, configTargets(app.rt.config), graceS);
  const accepted = async (key: string) => (await authenticateApiKey(em(), key, '/aceptacion')).username;
  const refused = async (key: string) => {
    const err = await authenticateApiKey(em(), key, '/aceptacion').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err, 'the key was accepted').to.be.instanceOf(HttpError);
    expect((err as HttpError).status).to.equal(401);
    expectKeyEnvelope((err as HttpError).body, AUTH_MESSAGES.keyInvalid);
  };

  before(async () => {
    app = await startApp();
  });
  beforeEach(async () => resetDb(app.rt.orm));
  after(async () => app.close());

  it('stores only the key’s SHA-256 and finds the user by it; the key itself is in no column', async () => {
    const key = newKey();
    expect((await run({ apiUsers: [userDoc({ apiKey: key })] }, 3600)).ok).to.equal(true);
    const [row] = await em().execute<Array<Record<string, unknown>>>(`select * from api_user where username = 'central-rotacion'`);
    expect(row.api_key_hash).to.equal(apiKeyHash(key));
    expect(JSON.stringify(row)).to.not.include(key);
    expect(await accepted(key)).to.equal('central-rotacion');
  });

  it('a new key keeps the previous one valid for API_KEY_GRACE_S, then refuses it; the new one works throughout', async () => {
    const [first, second] = [newKey(), newKey()];
    await run({ apiUsers: [userDoc({ apiKey: first })] }, 3600);
    const result = await run({ apiUsers: [userDoc({ apiKey: second })] }, 3600);
    expect(result.ok && result.summary.apiUsers).to.deep.equal({ created: 0, updated: 1, unchanged: 0 });
    expect(await accepted(first), 'the previous key, within its grace').to.equal('central-rotacion');
    expect(await accepted(second)).to.equal('central-rotacion');
    const [{ left }] = await em().execute<Array<{ left: number }>>(
      `select extract(epoch from previous_key_until - now())::int as left from api_user where username = 'central-rotacion'`,
    );
    expect(left).to.be.within(3590, 3600);
    // the grace ends (as if an hour had passed)
    await em().execute(`update api_user set previous_key_until = now() - interval '1 second' where username = 'central-rotacion'`);
    await refused(first);
    expect(await accepted(second)).to.equal('central-rotacion');
    // the same document again changes nothing (the grace is not restarted)
    const again = await run({ apiUsers: [userDoc({ apiKey: second })] }, 3600);
    expect(again.ok && again.summary.apiUsers).to.deep.equal({ created: 0, updated: 0, unchanged: 1 });
  });

  it('with a grace of 0 the previous key is refused at once; removing the key revokes it at once', async () => {
    const [first, second] = [newKey(), newKey()];
    await run({ apiUsers: [userDoc({ apiKey: first })] }, 0);
    await run({ apiUsers: [userDoc({ apiKey: second })] }, 0);
    await refused(first);
    expect(await accepted(second)).to.equal('central-rotacion');
    await run({ apiUsers: [userDoc()] }, 3600);
    await refused(second);
  });

  it('refuses passwords under 12 characters, keys under 24, and an outbound key equal to the inbound one, with clear messages', async () => {
    const short = await run({ apiUsers: [userDoc({ password: 'eleven-char', apiKey: 'k'.repeat(23), outboundKey: 'o'.repeat(23) })] }, 0);
    expect(short.ok).to.equal(false);
    expect(!short.ok && short.problems).to.deep.equal([
      '/apiUsers/0/password: must NOT have fewer than 12 characters',
      '/apiUsers/0/apiKey: must NOT have fewer than 24 characters',
      '/apiUsers/0/outboundKey: must NOT have fewer than 24 characters',
    ]);
    const same = newKey();
    const echoed = await run({ apiUsers: [userDoc({ apiKey: same, outboundKey: same })] }, 0);
    expect(!echoed.ok && echoed.problems).to.deep.equal(['/apiUsers/0/outboundKey: must differ from apiKey (the outbound credential is its own secret)']);
    const [{ n }] = await em().execute<Array<{ n: string }>>(`select count(*) as n from api_user`);
    expect(Number(n), 'nothing written').to.equal(0);
    expect((await run({ apiUsers: [userDoc({ password: 'x'.repeat(12), apiKey: 'k'.repeat(24), outboundKey: 'o'.repeat(24) })] }, 0)).ok).to.equal(true);
  });

  it('a key another user holds in its grace cannot be given to someone else', async () => {
    const [first, second] = [newKey(), newKey()];
    await run({ apiUsers: [userDoc({ apiKey: first })] }, 3600);
    await run({ apiUsers: [userDoc({ apiKey: second })] }, 3600);
    const taken = await run({ apiUsers: [{ ...userDoc({ apiKey: first }), username: 'otra-central' }] }, 3600);
    expect(!taken.ok && taken.problems).to.deep.equal(["/apiUsers/0/apiKey: already the API key of user 'central-rotacion'"]);
  });

  it('keeps the outbound key when a later document leaves it out', async () => {
    const out = `out-${newKey()}`;
    await run({ apiUsers: [userDoc({ apiKey: newKey(), outboundKey: out })] }, 0);
    await run({ apiUsers: [userDoc({ apiKey: newKey() })] }, 0);
    const [row] = await em().execute<Array<{ outbound_key: string }>>(`select outbound_key from api_user where username = 'central-rotacion'`);
    expect(row.outbound_key).to.equal(out);
  });
});
