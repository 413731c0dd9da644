/**
 * Factories and helpers of the offer lifecycle's tests: a generator with its
 * webhook profile, a responding central (its API user, key and technician),
 * and a valid POST /oferta body.
 */
import { expect } from 'chai';
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes, randomUUID } from 'node:crypto';
import type { ApiUser, Central, Technician } from '../../src/db/entities/index.js';
import { resetDb } from './db.js';
import {
  keyOf,
  BOGOTA,
  GENERATOR_URL,
  WITH_STATE_ENDPOINT,
  makeApiUser,
  makeCentral,
  makeGenerator,
  makeOffer,
  makeServiceType,
  makeTechnician,
  type Generator,
} from './factories.js';
import type { TestApp } from './harness.js';
import { waitFor } from './wait.js';

export { GENERATOR_URL, RESPUESTA_PATH, makeGenerator, type Generator } from './factories.js';

export interface Responder {
  user: ApiUser;
  key: string;
  central: Central;
  technician: Technician;
}

/** A central with coverage around Bogotá, its API user (with an API key) and one positioned technician. */
export async function makeResponder(
  em: EntityManager,
  o: { nit?: string; name?: string; position?: { lat: number; lng: number }; rate?: number; owner?: ApiUser } = {},
): Promise<Responder> {
  const key = `key-${randomBytes(10).toString('hex')}`;
  const user = o.owner ?? (await makeApiUser(em, { apiKey: key, businessName: o.name ?? 'Grúas del Norte', endpoints: ['/aceptacion'] })).user;
  const central = await makeCentral(em, { apiUser: user, name: o.name ?? 'Grúas del Norte', ...(o.nit ? { nit: o.nit } : {}) });
  const technician = await makeTechnician(em, central, {
    names: `Técnico ${central.nit}`,
    identifier: `T-${central.nit.slice(-4)}`,
    rate: o.rate ?? 4.5,
    position: o.position ?? { lat: BOGOTA.lat + 0.01, lng: BOGOTA.lng },
  });
  return { user, key: o.owner ? (keyOf(o.owner) ?? key) : key, central, technician };
}

/**
 * Two centrals answering the same offers: `fast` (rate 4) and `slow` (rate 3),
 * whose API user also has a novelty endpoint, so a selection it loses plans
 * its "not assigned" notice (D12).
 */
export async function makeRivals(em: () => EntityManager): Promise<{ fast: Responder; slow: Responder }> {
  const fast = await makeResponder(em(), { rate: 4 });
  const owner = (
    await makeApiUser(em(), { apiKey: 'key-slow-central-0001', endpoints: ['/aceptacion'], urlApi: GENERATOR_URL, apiEndpoint: { novedad: '/novedad' } })
  ).user;
  const slow = await makeResponder(em(), { owner, name: 'Grúas del Sur', rate: 3 });
  return { fast, slow };
}

/** A valid POST /oferta body (coordinates in Bogotá, immediate service). */
export function offerBody(o: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    uuid: randomUUID(),
    tipoServicio: '1',
    latitudOrigen: BOGOTA.lat,
    longitudOrigen: BOGOTA.lng,
    direccionOrigen: 'Calle 53 # 13-40',
    fechaCita: '',
    ...o,
  };
}

/** A PUT /aceptacion body for a responder. */
export function acceptanceBody(offerUuid: string, r: Responder, o: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: offerUuid, dniPrestador: r.central.nit, dniTecnico: r.technician.dni, ...o };
}

/**
 * The parties of the closing tests, on an emptied database: service type 1,
 * a generator with a state endpoint and the two rival centrals (makeRivals).
 */
export async function closingParties(app: TestApp): Promise<{ gen: Generator; fast: Responder; slow: Responder }> {
  const fork = () => app.rt.orm.em.fork();
  await resetDb(app.rt.orm);
  await makeServiceType(fork(), { id: 1 });
  const gen = await makeGenerator(fork(), WITH_STATE_ENDPOINT);
  return { gen, ...(await makeRivals(fork)) };
}

/**
 * The offer distributed to these centrals (D8, D20: only a recipient may answer it): one offer_recipient row each,
 * as the distribution writes it. The offer's row is left as it is (its distribution mark too), so the tests that
 * order offers by equal deadlines see them as before.
 */
export async function distributeTo(em: EntityManager, offerUuid: string, ...to: ReadonlyArray<Responder | Central>): Promise<void> {
  if (!to.length) return;
  const ids = to.map((r) => ('central' in r ? r.central.id : r.id));
  // a distribution running meanwhile (workers) may write the same rows: a deadlock between the two is tried again
  for (let attempt = 1; ; attempt++) {
    try {
      await em.getConnection().execute(
        `insert into offer_recipient (offer_uuid, central_id, channel, technician_ids, technician_km, created_at)
         select ?::uuid, c, 'none', '{}', '{}', now() from unnest(?::int[]) as c on conflict do nothing`,
        [offerUuid, `{${ids.join(',')}}`],
      );
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || attempt === 3) throw err;
    }
  }
}

/** Waits until the distribution worker has recorded the offer's recipients (a central answers what reached it, D20). */
export async function distributed(app: TestApp, offerUuid: string, ms = 5000): Promise<void> {
  await waitFor(
    async () => {
      const [row] = await app.rt.orm.em.fork().getConnection().execute<Array<{ d: Date | null }>>(`select distributed_at as d from offer where uuid = ?`, [offerUuid]);
      return row?.d != null;
    },
    ms,
    `distribution of ${offerUuid}`,
  );
}

/** An offer open for a minute, answered through PUT /aceptacion by each responder with its arrival time (minutes). */
export async function answeredOffer(app: TestApp, gen: Generator, answers: ReadonlyArray<readonly [Responder, number]>): Promise<string> {
  const offer = await makeOffer(app.rt.orm.em.fork(), gen.user, { deadlineAt: new Date(Date.now() + 60_000) });
  await distributeTo(app.rt.orm.em.fork(), offer.uuid, ...answers.map(([r]) => r));
  for (const [r, minutes] of answers) {
    const res = await app.client.put('api/v3/aceptacion', { json: acceptanceBody(offer.uuid, r, { tiempoLlegadaSitio: minutes }), headers: { 'x-apikey': r.key } });
    expect(res.statusCode, 'the answer is recorded').to.equal(200);
  }
  return offer.uuid;
}

/** Moves the offers' deadlines a second into the past: their windows are due. */
export async function makeDue(app: TestApp, uuids: readonly string[]): Promise<void> {
  await app.rt.orm.em.fork().getConnection().execute(`update offer set deadline_at = now() - interval '1 second' where uuid = any(?::uuid[])`, [`{${uuids.join(',')}}`]);
}
