import { expect } from 'chai';
import { createOrm, type MikroORM } from '../../src/db/orm.js';
import { dropDatabase, ensureDatabase } from '../../src/db/database.js';

/**
 * Migration20261127030000_recipients_per_central on a database of its own: rows recorded one per technician are
 * folded into their central's row (ids and distances nearest first, the publish time only when every technician of
 * it was told), a technician without its central's row gets one, and `down` gives the rows back.
 */
describe('migration: recipients one row per central (issue 12)', function () {
  this.timeout(60_000);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `${url.pathname}_recipients_migration`;
  let orm: MikroORM;
  const q = <R extends object>(text: string, params: unknown[] = []) => orm.em.fork().getConnection().execute<R[]>(text, params);

  before(async () => {
    await dropDatabase(url.toString());
    await ensureDatabase(url.toString());
    orm = await createOrm(url.toString());
    await orm.migrator.up({ to: 'Migration20261126070000_offer_distributed' });
  });
  after(async () => {
    await orm?.close(true);
    await dropDatabase(url.toString());
  });

  it('folds each technician into its central, keeps what was told, and goes back down', async () => {
    await q(`insert into service_type (id, type, required_origin, required_destination) values (1, 'GRUA', true, false)`);
    await q(`insert into api_user (id, username, password_sha256, status, endpoints, business_name, api_endpoint, created_at, updated_at)
             values (1, 'gen', 'x', 'ACTIVO', '[]', 'Gen', '{}', now(), now())`);
    await q(`insert into central (id, nit, name, service_types) values (1, '900', 'A', '[1]'), (2, '901', 'B', '[1]')`);
    await q(`insert into technician (id, dni, central_id, names, service_types) values (11, 'T11', 1, 'Uno', '[1]'), (12, 'T12', 1, 'Dos', '[1]'), (21, 'T21', 2, 'Tres', '[1]')`);
    const offer = '00000000-0000-4000-8000-0000000000aa';
    await q(`insert into offer (uuid, generator_id, service_type_id, state, created_at, updated_at, origin_lat, origin_lng, descripcion_servicio, scheduled_at, ofertante)
             values (?, 1, 1, 'ABIERTA', now(), now(), 4.6, -74.0, 'GRUA', now(), 'x')`, [offer]);
    // central 1 recorded with two technicians (both told); central 2's row missing, its technician not told
    await q(`insert into offer_recipient (offer_uuid, kind, central_id, technician_id, channel, distance_km, created_at, notified_at) values
             (?, 'central', 1, null, 'none', null, now(), null),
             (?, 'technician', 1, 12, 'realtime', 2.5, now(), '2026-11-27T03:00:00Z'),
             (?, 'technician', 1, 11, 'realtime', 1.5, now(), '2026-11-27T03:00:00Z'),
             (?, 'technician', 2, 21, 'realtime', 3.5, now(), null)`, [offer, offer, offer, offer]);

    // up to this migration only: `down` below undoes it, whatever later migrations exist
    await orm.migrator.up({ to: 'Migration20261127030000_recipients_per_central' });
    const rows = await q<{ central_id: number; channel: string; technician_ids: number[]; technician_km: number[]; technicians_notified_at: string | null }>(
      `select central_id, channel, technician_ids, technician_km, technicians_notified_at from offer_recipient order by central_id`,
    );
    expect(rows.map((r) => ({ ...r, technicians_notified_at: r.technicians_notified_at && new Date(r.technicians_notified_at).toISOString() }))).to.deep.equal([
      { central_id: 1, channel: 'none', technician_ids: [11, 12], technician_km: [1.5, 2.5], technicians_notified_at: '2026-11-27T03:00:00.000Z' },
      { central_id: 2, channel: 'none', technician_ids: [21], technician_km: [3.5], technicians_notified_at: null },
    ]);
    // one row per offer and central from now on
    const again = await q(`insert into offer_recipient (offer_uuid, central_id, channel, created_at) values (?, 1, 'none', now()) on conflict do nothing returning id`, [offer]);
    expect(again).to.deep.equal([]);

    await orm.migrator.down();
    const back = await q<{ kind: string; central_id: number; technician_id: number | null; distance_km: number | null; told: boolean }>(
      `select kind, central_id, technician_id, distance_km, notified_at is not null as told from offer_recipient order by kind, central_id, distance_km`,
    );
    expect(back).to.deep.equal([
      { kind: 'central', central_id: 1, technician_id: null, distance_km: null, told: false },
      { kind: 'central', central_id: 2, technician_id: null, distance_km: null, told: false },
      { kind: 'technician', central_id: 1, technician_id: 11, distance_km: 1.5, told: true },
      { kind: 'technician', central_id: 1, technician_id: 12, distance_km: 2.5, told: true },
      { kind: 'technician', central_id: 2, technician_id: 21, distance_km: 3.5, told: false },
    ]);
  });
});
