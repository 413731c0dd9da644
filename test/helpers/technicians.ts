/**
 * A technician's own credential and work (D20): a token issued over HTTP, an
 * open offer published to a technician, a service it is doing.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Got } from 'got';
import { expect } from 'chai';
import { OfferRecipient, Technician, type Offer } from '../../src/db/entities/index.js';
import { holdTechnicianForOffer } from '../../src/db/stores/technicians.js';
import { offerIn, type Generator, type Provider } from './ops.js';

/** POST /tecnicos/token with the central's key; the token. */
export async function issueToken(client: Got, apiKey: string, dniTecnico: string): Promise<string> {
  const res = await client.post('api/v3/tecnicos/token', { headers: { 'x-apikey': apiKey }, json: { dniTecnico } });
  expect(res.statusCode, JSON.stringify(res.body)).to.equal(200);
  return (res.body as unknown as { token: string }).token;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** An ABIERTA offer published to `technician` (its central's recipient row, notified) at `km`. */
export async function openOfferFor(em: EntityManager, gen: Generator, technician: Technician, km = 1.5): Promise<Offer> {
  const offer = await offerIn(em, gen, 'ABIERTA');
  em.create(OfferRecipient, {
    offer,
    central: technician.central,
    channel: 'none',
    technicianIds: [technician.id],
    technicianKm: [km],
    techniciansNotifiedAt: new Date(),
  });
  await em.flush();
  return offer;
}

let seq = 0;

/** A service in `state` assigned to the provider's technician (or `technician`), which it holds (D16). */
export async function serviceOf(em: EntityManager, gen: Generator, prov: Provider, state: Offer['state'] = 'ASIGNADA', technician?: Technician): Promise<Offer> {
  const n = seq++;
  const code = `SV-T${'ABCDEFGHJK'[n % 10]}${'MNPQRSTVWX'[Math.floor(n / 10) % 10]}${'2345'[Math.floor(n / 100) % 4]}K7`;
  const offer = await offerIn(em, gen, state, prov, { codigoServicio: code, ...(technician ? { assignedTechnician: technician } : {}) });
  await holdTechnicianForOffer(em, offer.uuid, (technician ?? prov.technician).id);
  return offer;
}
