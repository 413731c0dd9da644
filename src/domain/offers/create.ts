/**
 * POST /oferta (spec 2.1, 4.1, decisions D3): an offer is stored ABIERTA with
 * its deadline and audit row, committed, and only then are its jobs
 * enqueued. A uuid that already exists (also when twenty requests race for
 * it: the primary key decides) is answered per D3 without revealing another
 * generator's offer.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer, ServiceType, type ApiUser } from '../../db/entities/index.js';
import { controllerError } from '../../http/errors.js';
import type { Runtime } from '../../main/runtime.js';
import { publishOfferEvent } from './events.js';
import { OFFER_MESSAGES, draftOffer, type OfferDraft, type OfferInput } from './input.js';
import { offerResponses, type ResponseView } from './responses.js';
import { scheduleOfferJobs } from './schedule.js';
import { recordCreation } from './stateMachine.js';

export const DEFAULT_DESCRIPTION = 'SERVICIO NO ESPECIFICADO';

export type CreateOutcome =
  | { kind: 'created'; uuid: string }
  /** the same generator's offer is still ABIERTA: its responses so far */
  | { kind: 'processing'; uuid: string; offersResponses: ResponseView[] };

export async function createOffer(rt: Runtime, generator: ApiUser, input: OfferInput): Promise<CreateOutcome> {
  const draft = draftOffer(input);
  const em = rt.orm.em.fork();
  const type = await em.findOne(ServiceType, { id: draft.serviceTypeId });
  if (!type) throw controllerError(400, OFFER_MESSAGES.typeUnknown(draft.serviceTypeId));
  // A geocoded origin names its city and department; the body's values are kept where it does not.
  const origin = draft.origin
    ? { ...draft.origin, ciudad: draft.ciudad, departamento: draft.departamento }
    : await geocodeOrFail(rt, draft.direccionOrigen ?? '', OFFER_MESSAGES.originNotFound).then((hit) => ({
        ...hit,
        ciudad: hit.ciudad ?? draft.ciudad,
        departamento: hit.departamento ?? draft.departamento,
      }));
  const destination =
    draft.destination ??
    (draft.direccionDestino ? await geocodeOrFail(rt, draft.direccionDestino, OFFER_MESSAGES.destinationNotFound) : null);

  const now = new Date();
  const offer = em.create(Offer, {
    uuid: draft.uuid,
    generator: generator.id,
    serviceType: type,
    state: 'ABIERTA',
    createdAt: now,
    updatedAt: now,
    deadlineAt: new Date(now.getTime() + rt.config.offerResponseWindowMs),
    expiresAt: new Date(now.getTime() + rt.config.offerMaxOpenMs),
    originLat: origin.lat,
    originLng: origin.lng,
    direccionOrigen: draft.direccionOrigen,
    puntoReferenciaOrigen: draft.puntoReferenciaOrigen,
    ciudad: origin.ciudad,
    departamento: origin.departamento,
    destLat: destination?.lat ?? null,
    destLng: destination?.lng ?? null,
    direccionDestino: draft.direccionDestino,
    puntoReferenciaDestino: draft.puntoReferenciaDestino,
    descripcionServicio: draft.descripcionServicio ?? (type.type.trim() || DEFAULT_DESCRIPTION),
    fechaCita: draft.fechaCita,
    horaCita: draft.horaCita,
    scheduledAt: draft.scheduledAt ?? now,
    observaciones: draft.observaciones,
    vehiculo: draft.vehiculo,
    priority: draft.priority,
    ofertante: ofertante(generator, draft),
    internal: draft.internal,
    global: draft.global,
    socketId: draft.socketId,
    stops: [],
    codigoServicio: null,
    codigoSolicitud: null,
    assignedCentral: null,
    assignedTechnician: null,
    acceptedResponse: null,
    ranking: null,
    placa: null,
    observacionesAsignacion: null,
    motivo: null,
  });
  recordCreation(em, offer, 'oferta', `api-user:${generator.username}`);
  try {
    await em.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) return answerDuplicate(rt, generator, draft);
    throw err;
  }
  await scheduleOfferJobs(rt, offer);
  if (draft.socketId) await subscribeSocket(rt, { uuid: offer.uuid, generatorId: generator.id }, draft.socketId);
  return { kind: 'created', uuid: offer.uuid };
}

/** `Ofertante - Subofertante`, the offerer defaulting to the credential's business name (spec 2.1). */
function ofertante(generator: ApiUser, draft: OfferDraft): string {
  const base = draft.ofertante ?? generator.businessName;
  return (draft.subOfertante ? `${base} - ${draft.subOfertante}` : base).slice(0, 255);
}

async function geocodeOrFail(rt: Runtime, address: string, message: string) {
  const hit = await rt.geocoder.geocode(address);
  if (!hit) throw controllerError(400, message);
  return hit;
}

/** D3: the same generator's ABIERTA offer answers with its responses; anything else is refused. */
async function answerDuplicate(rt: Runtime, generator: ApiUser, draft: OfferDraft): Promise<CreateOutcome> {
  const em: EntityManager = rt.orm.em.fork();
  const existing = await em.findOne(Offer, { uuid: draft.uuid });
  if (!existing || existing.generator.id !== generator.id || existing.state !== 'ABIERTA') {
    throw controllerError(400, OFFER_MESSAGES.alreadyOffered);
  }
  // Re-adding the jobs is harmless (same ids) and repairs an offer whose first enqueue failed.
  await scheduleOfferJobs(rt, existing, new Date());
  if (draft.socketId) {
    await em.nativeUpdate(Offer, { uuid: existing.uuid }, { socketId: draft.socketId });
    await subscribeSocket(rt, { uuid: existing.uuid, generatorId: generator.id }, draft.socketId);
  }
  const { responses } = await offerResponses(em, existing);
  return { kind: 'processing', uuid: existing.uuid, offersResponses: responses };
}

/** Asks the socket servers to add this socket to the offer's live events (D3, D10). */
async function subscribeSocket(rt: Runtime, offer: { uuid: string; generatorId: number }, socketId: string): Promise<void> {
  await publishOfferEvent(rt, offer, 'offer.subscribe', { socketId });
}
