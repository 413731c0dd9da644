/**
 * POST /asignacion-directa (D6): an offer body (spec 2.1, read with the rules
 * and messages of POST /oferta) plus the tax id of the central
 * (`dniPrestador`) and optionally its technician (`dniTecnico`); the service
 * is written like a new offer but already ASIGNADA to that central, with no
 * response window and no distribution, and with its codigoServicio and
 * codigoSolicitud. The service is pushed to the central at its
 * `api_endpoint.oferta` (D12: `asignacionDirecta: true` and both codes), as a
 * delivery retried with backoff like a state notification.
 */
import { Central, Offer, ServiceType, Technician, type ApiUser } from '../../../db/entities/index.js';
import { DomainError } from '../../errors.js';
import type { Runtime } from '../../ports.js';
import { freeServiceCodes } from '../lifecycle/codes.js';
import type { Push } from '../lifecycle/moves.js';
import { draftOffer, type OfferInput } from '../create/input.js';
import { prepareOffer } from '../create/prepare.js';
import { insertOffer } from '../create/write.js';
import { offerFields } from '../../distribution/payload.js';
import { profileEndpoint } from '../../../webhooks/dispatch.js';

export type DirectAssignmentInput = OfferInput & { dniPrestador: string; dniTecnico?: string };

export interface DirectAssignmentResult {
  uuid: string;
  centralName: string;
  codigoServicio: string;
  codigoSolicitud: string;
}

export async function assignDirectly(rt: Runtime, user: ApiUser, input: DirectAssignmentInput): Promise<DirectAssignmentResult> {
  const em = rt.orm.em.fork();
  const draft = draftOffer(input);
  const type = await em.findOne(ServiceType, draft.serviceTypeId);
  if (!type) throw new DomainError('offer.type-unknown', { serviceTypeId: draft.serviceTypeId });
  const nit = input.dniPrestador.trim();
  const central = await em.findOne(Central, { nit }, { populate: ['apiUser'] });
  if (!central) throw new DomainError('direct.central-unknown', { nit });
  if (!central.serviceTypes.includes(type.id)) throw new DomainError('direct.type-not-served', { central: central.name, type: type.type });
  const technician = input.dniTecnico ? await em.findOne(Technician, { dni: input.dniTecnico.trim(), central }) : null;
  if (input.dniTecnico && !technician) throw new DomainError('direct.technician-unknown', { dni: input.dniTecnico });
  // Checked before geocoding to spare the geocoder; the insert below still decides a race.
  if (await em.count(Offer, { uuid: draft.uuid })) throw new DomainError('offer.uuid-exists', { uuid: draft.uuid });
  const prepared = await prepareOffer(rt, user, draft);

  const { inserted, codes } = await em.transactional(async (tx) => {
    const codes = await freeServiceCodes(tx);
    const offer = {
      ...prepared,
      deadlineAt: null,
      expiresAt: null,
      socketId: null,
      assignment: { centralId: central.id, technicianId: technician?.id ?? null, ...codes },
    };
    // D12: the push to the central, planned with the creation (it reads the offer as inserted), sent once committed;
    // (none) → ASIGNADA holds the named technician (D16) and is announced like any move (moves.ts).
    const receiver = central.apiUser ?? null;
    const url = receiver ? profileEndpoint(receiver, 'oferta') : null;
    const pushes = async (em: typeof tx): Promise<Push[]> => {
      if (!receiver || !url) return [];
      const created = await em.findOneOrFail(Offer, draft.uuid);
      const body = { ...offerFields(created), asignacionDirecta: true, ...codes, ...(technician ? { dniTecnico: technician.dni } : {}) };
      return [{ kind: 'assignment-push', receiverId: receiver.id, url, body }];
    };
    const inserted = await insertOffer(tx, offer, { by: 'asignacion-directa', actor: `api-user:${user.username}` }, pushes);
    return { inserted, codes };
  });
  if (inserted === 'unknown-type') throw new DomainError('offer.type-unknown', { serviceTypeId: draft.serviceTypeId });
  if (inserted === 'uuid-exists') throw new DomainError('offer.uuid-exists', { uuid: draft.uuid });
  return { uuid: draft.uuid, centralName: central.name, ...codes };
}
