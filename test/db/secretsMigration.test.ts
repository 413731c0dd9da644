import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createOrm, type MikroORM } from '../../src/db/orm.js';
import { dropDatabase, ensureDatabase } from '../../src/db/database.js';

/**
 * Migration20261128120000_api_key_hashes and Migration20261128120100_sms_sealed on a database of their own (issue
 * 29 item 4): existing keys are hashed in place (a technician's token bound to the key keeps working, its
 * fingerprint being that hash), each profile keeps sending the x-apikey its receiver knows as its own outbound key,
 * and SMS already kept lose their codes, the `outbox` rows aside.
 */
describe('migration: secrets at rest (issue 29 item 4)', function () {
  this.timeout(60_000);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `${url.pathname}_secrets_migration`;
  let orm: MikroORM;
  const q = <R extends object>(text: string, params: unknown[] = []) => orm.em.fork().getConnection().execute<R[]>(text, params);
  const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

  before(async () => {
    await dropDatabase(url.toString());
    await ensureDatabase(url.toString());
    orm = await createOrm(url.toString());
    await orm.migrator.up({ to: 'Migration20261128070000_technician_token' });
  });
  after(async () => {
    await orm?.close(true);
    await dropDatabase(url.toString());
  });

  it('hashes keys in place, keeps each receiver’s x-apikey as its outbound key, masks stored codes', async () => {
    const key = 'legacy-central-key-0001';
    await q(`insert into api_user (id, username, password_sha256, status, endpoints, business_name, api_key, api_endpoint, created_at, updated_at)
             values (1, 'central', 'x', 'ACTIVO', '[]', 'Central', ?, '{}', now(), now()),
                    (2, 'gen', 'x', 'ACTIVO', '[]', 'Gen', null, '{}', now(), now())`, [key]);
    await q(`insert into central (id, nit, name, service_types, api_user_id) values (1, '900', 'A', '[1]', 1)`);
    await q(`insert into technician (id, dni, central_id, names, service_types) values (11, 'T11', 1, 'Uno', '[1]')`);
    await q(`insert into technician_token (token_hash, technician_id, api_user_id, key_fingerprint, expires_at)
             values (?, 11, 1, encode(sha256(convert_to(?, 'UTF8')), 'hex'), now() + interval '1 hour')`, ['t'.repeat(64), key]);
    await q(`insert into sms_message (id, to_phone, body, provider) values
             ('00000000-0000-4000-8000-000000000001', '+573001112233', 'Aseguradora: su código de seguimiento es 123456 (válido 10 minutos). http://x/seguimiento?expediente=SV-234567', 'http'),
             ('00000000-0000-4000-8000-000000000002', '+573001112233', 'Tu código de seguimiento es 654321', 'twilio'),
             ('00000000-0000-4000-8000-000000000003', '+573001112233', 'Tu código de seguimiento es 111222', 'outbox')`);

    await orm.migrator.up({ to: 'Migration20261128120100_sms_sealed' });

    const users = await q<{ id: number; api_key_hash: string | null; outbound_key: string | null; previous_api_key_hash: string | null }>(
      `select id, api_key_hash, outbound_key, previous_api_key_hash from api_user order by id`,
    );
    expect(users).to.deep.equal([
      { id: 1, api_key_hash: sha(key), outbound_key: key, previous_api_key_hash: null },
      { id: 2, api_key_hash: null, outbound_key: null, previous_api_key_hash: null },
    ]);
    const [{ bound }] = await q<{ bound: boolean }>(`select t.key_fingerprint = u.api_key_hash as bound from technician_token t join api_user u on u.id = t.api_user_id`);
    expect(bound, 'a technician token issued under the key still matches it').to.equal(true);
    const sms = await q<{ body: string; sealed_body: string | null }>(`select body, sealed_body from sms_message order by id`);
    expect(sms).to.deep.equal([
      { body: 'Aseguradora: su código de seguimiento es ****** (válido 10 minutos). http://x/seguimiento?expediente=SV-234567', sealed_body: null },
      { body: 'Tu código de seguimiento es ******', sealed_body: null },
      { body: 'Tu código de seguimiento es 111222', sealed_body: null },
    ]);
  });
});
