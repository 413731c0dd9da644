/**
 * PUT /aceptacion (spec 2.5, 4.3, decisions D4): a central's answer to an
 * offer. The checks run in D4's order; then, on the offer locked FOR UPDATE,
 * the state decides: ABIERTA records the response (or, for the generator's
 * own central, assigns at once), SIN_RESPUESTA takes a late acceptance (first
 * come) and forwards it to the generator synchronously. Every decision is
 * made under the lock and commits its new state before anything is sent, so
 * any number of simultaneous acceptances and the evaluation produce one
 * winner. Used by the HTTP route and by the WebSocket server: it takes the
 * validated body, returns an outcome and raises DomainErrors; the operation
 * shapes both (src/api/offers/acceptOffer.ts, src/api/errorTable.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Central, Offer, OfferResponse, Technician, type ApiUser } from '../../../db/entities/index.js';
import { computeResponseFigures, responseFigures, validCoords, type ResponseFigures } from '../../../geo/figures.js';
import { DomainError } from '../../errors.js';
import type { Runtime } from '../../ports.js';
import { profileEndpoint } from '../../../webhooks/deliveries.js';
import { dispatchAcceptance } from '../selection/acceptanceNotification.js';
import { coordinate, point, type Axis } from '../../../geo/coordinates.js';
import { onCommit } from '../lifecycle/announce.js';
import { publishOfferEvent } from '../lifecycle/events.js';
import { responseView } from './responses.js';
import { announceSelection, selectResponse, type Selection } from '../selection/selection.js';
import { lockOffer } from '../lifecycle/stateMachine.js';
import type { OfferState } from '../lifecycle/states.js';
import { prepared, sql } from '../../../db/sql.js';

/** PUT /aceptacion's validated body (its schema and wording: src/api/offers/acceptOffer.ts). */
export interface AcceptanceInput {
  id: string;
  dniPrestador: string | number;
  dniTecnico: string | number;
  tiempoLlegadaSitio?: number | null;
  latitudTecnico?: string | number | null;
  longitudTecnico?: string | number | null;
}

/** What an acceptance came to; the operation shapes it (src/api/offers/acceptOffer.ts). */
export type AcceptanceOutcome =
  /** recorded on an ABIERTA offer, or won at once by the generator's own central */
  | { kind: 'recorded' }
  /** a late acceptance the generator confirmed (D4c) */
  | { kind: 'accepted'; paymentPending: boolean }
  /** a late acceptance the generator refused or did not answer: its reply, as it came */
  | { kind: 'forward-rejected'; replyBody: string | null };

/** D4.1 after the schema: the values, with the coordinates' ranges checked. */
function parseAcceptance(body: AcceptanceInput) {
  const axis = (value: AcceptanceInput['latitudTecnico'], field: string, a: Axis) => {
    const c = coordinate(value, a);
    if (c === 'out-of-range') throw new DomainError('acceptance.coordinate-out-of-range', { field, axis: a });
    return c;
  };
  return {
    offerUuid: body.id.toLowerCase(),
    dniPrestador: String(body.dniPrestador).trim(),
    dniTecnico: String(body.dniTecnico).trim(),
    minutes: body.tiempoLlegadaSitio ?? null,
    position: point(axis(body.latitudTecnico, 'latitudTecnico', 'lat'), axis(body.longitudTecnico, 'longitudTecnico', 'lng')),
  };
}

type Parsed = ReturnType<typeof parseAcceptance>;

interface Parties {
  offer: Offer;
  generator: ApiUser;
  central: Central;
  technician: Technician;
}

/** D4.2–5, reads only. */
async function findParties(em: EntityManager, caller: ApiUser, a: Parsed): Promise<Parties> {
  const central = await em.findOne(Central, { nit: a.dniPrestador, apiUser: caller.id });
  if (!central) throw new DomainError('acceptance.central-not-caller', { nit: a.dniPrestador });
  const offer = await em.findOne(Offer, { uuid: a.offerUuid }, { populate: ['generator'] });
  if (!offer) throw new DomainError('offer.not-found', { uuid: a.offerUuid });
  const technician = await em.findOne(Technician, { dni: a.dniTecnico, central: central.id });
  if (!technician) throw new DomainError('acceptance.technician-not-found', { dni: a.dniTecnico });
  if (!profileEndpoint(offer.generator, 'respuesta')) throw new DomainError('acceptance.generator-api-not-found', { generatorId: offer.generator.id });
  return { offer, generator: offer.generator, central, technician };
}

/** D4.6: states that take no acceptance. */
function refusal(state: OfferState): DomainError | null {
  switch (state) {
    case 'ABIERTA':
    case 'SIN_RESPUESTA':
      return null;
    case 'ACEPTADA':
    case 'ASIGNADA':
    case 'EN_CAMINO':
    case 'EN_SITIO':
      return new DomainError('acceptance.already-accepted', { state });
    default:
      return new DomainError('acceptance.closed', { state });
  }
}

type Decision =
  | { kind: 'recorded'; response: OfferResponse }
  | { kind: 'own'; response: OfferResponse; selection: Selection }
  | { kind: 'late'; response: OfferResponse; selection: Selection };

/** A central answering twice replaces its own response. */
async function upsertResponse(em: EntityManager, p: Parties, figures: ResponseFigures): Promise<OfferResponse> {
  const values = { technician: p.technician, rate: p.technician.rate, ...figures };
  const existing = await em.findOne(OfferResponse, { offer: p.offer.uuid, central: p.central.id });
  const response = existing ? em.assign(existing, values) : em.create(OfferResponse, { offer: p.offer, central: p.central, ...values });
  await em.flush();
  return response;
}

/** Under the offer's lock: the state decides (D4 a, b, c). */
async function decide(rt: Runtime, em: EntityManager, p: Parties, figures: ResponseFigures): Promise<Decision> {
  const offer = await lockOffer(em, p.offer.uuid);
  if (!offer) throw new DomainError('offer.not-found', { uuid: p.offer.uuid });
  const refused = refusal(offer.state);
  if (refused) throw refused;
  const response = await upsertResponse(em, { ...p, offer }, figures);
  // Declared before any move, so the live events keep their order: the response, then the state.
  const view = responseView(response);
  onCommit(em, (rt) => publishOfferEvent(rt, { uuid: offer.uuid, generatorId: p.generator.id }, 'offer.response', { response: view }));
  const actor = `central:${p.central.nit}`;
  if (offer.state === 'SIN_RESPUESTA') {
    const selection = await selectResponse(em, rt.config, offer, response, [response], { to: 'ACEPTADA', by: 'aceptacion-tardia', actor });
    return { kind: 'late', response, selection };
  }
  if (p.generator.nit !== null && p.central.nit === p.generator.nit) {
    const selection = await selectResponse(em, rt.config, offer, response, [response], { to: 'ASIGNADA', by: 'aceptacion-propia', actor });
    return { kind: 'own', response, selection };
  }
  return { kind: 'recorded', response };
}

/** D4c after its commit: the forward to the generator decides ACEPTADA or INACTIVA. */
async function forwardLateAcceptance(rt: Runtime, p: Parties, selection: Selection): Promise<AcceptanceOutcome> {
  const outcome = selection.deliveryId ? await dispatchAcceptance(rt, selection.deliveryId) : null;
  if (!outcome?.ok) return { kind: 'forward-rejected', replyBody: outcome?.replyBody ?? null };
  await publishOfferEvent(rt, selection.offer, 'offer.accepted', { accepted: selection.accepted });
  return { kind: 'accepted', paymentPending: p.generator.requiresPaymentConfirmation };
}

interface Facts {
  central_id: number | null;
  central_nit: string | null;
  offer_state: OfferState | null;
  generator_id: number | null;
  generator_nit: string | null;
  url_api: string | null;
  api_endpoint: ApiUser['apiEndpoint'] | null;
  technician_id: number | null;
  technician_names: string | null;
  technician_rate: number | null;
  distance_m: number | null;
  lat: number | null;
  lng: number | null;
}

/**
 * Everything D4.2–6 and D2's figures need, in one statement: the caller's central, the offer, its generator's
 * endpoint, the technician and its distance to the origin (the given point, else its last position).
 */
const FACTS = prepared(`
  select c.id as central_id, c.nit as central_nit, o.state as offer_state, o.generator_id, g.nit as generator_nit,
         g.url_api, g.api_endpoint, t.id as technician_id, t.names as technician_names, t.rate as technician_rate,
         st_distance(o.origin, p.pt) as distance_m, st_y(p.pt::geometry) as lat, st_x(p.pt::geometry) as lng
    from (select 1) one
    left join central c on c.nit = $1 and c.api_user_id = $2
    left join offer o on o.uuid = $3
    left join api_user g on g.id = o.generator_id
    left join technician t on t.dni = $4 and t.central_id = c.id
    left join lateral (
      select case when $5::boolean then st_setsrid(st_makepoint($6::float8, $7::float8), 4326)::geography else t.position end as pt
    ) p on true`);

/**
 * The response of an offer still ABIERTA, in one statement: the offer locked FOR UPDATE (so it serialises with the
 * evaluation, which locks it before reading the responses), the response upserted only when the state is ABIERTA
 * (a central answering twice replaces its own), and the state seen under the lock.
 */
const RECORD = prepared(`
  with o as (select uuid, state from offer where uuid = $1 for update),
  up as (
    insert into offer_response (offer_uuid, central_id, technician_id, distance_km, time_min, time_given, rate, tech_lat, tech_lng, created_at, updated_at)
    select o.uuid, $2::int, $3::int, $4::float8, $5::float8, $6::boolean, $7::float8, $8::float8, $9::float8, now(), now()
      from o where o.state = 'ABIERTA'
    on conflict (offer_uuid, central_id) do update
       set technician_id = excluded.technician_id, distance_km = excluded.distance_km, time_min = excluded.time_min,
           time_given = excluded.time_given, rate = excluded.rate, tech_lat = excluded.tech_lat, tech_lng = excluded.tech_lng,
           updated_at = now()
    returning id
  )
  select o.state, (select id from up) as response_id from o`);

/**
 * The common path (issue 12 item 5): a response to an offer still ABIERTA from a central that is not the
 * generator's own: two round trips to PostgreSQL (the facts, then the locked upsert). Anything else (a late
 * acceptance, the generator's own central, a state that changed meanwhile to SIN_RESPUESTA) takes the transactional
 * path below; null says so.
 */
async function recordQuickly(rt: Runtime, em: EntityManager, caller: ApiUser, a: Parsed): Promise<AcceptanceOutcome | null> {
  const given = a.position !== null && validCoords(a.position.lat, a.position.lng);
  const [f] = await sql<Facts>(em, FACTS, [
    a.dniPrestador,
    caller.id,
    a.offerUuid,
    a.dniTecnico,
    given,
    given ? a.position!.lng : 0,
    given ? a.position!.lat : 0,
  ]);
  if (f.central_id === null) throw new DomainError('acceptance.central-not-caller', { nit: a.dniPrestador });
  if (f.offer_state === null || f.generator_id === null) throw new DomainError('offer.not-found', { uuid: a.offerUuid });
  if (f.technician_id === null) throw new DomainError('acceptance.technician-not-found', { dni: a.dniTecnico });
  if (!profileEndpoint({ urlApi: f.url_api, apiEndpoint: f.api_endpoint ?? {} }, 'respuesta')) {
    throw new DomainError('acceptance.generator-api-not-found', { generatorId: f.generator_id });
  }
  const early = refusal(f.offer_state);
  if (early) throw early;
  if (f.offer_state !== 'ABIERTA' || (f.generator_nit !== null && f.central_nit === f.generator_nit)) return null;
  const figures = responseFigures(f, a.minutes, f.technician_id, rt.config.averageSpeedKmh);
  const [r] = await sql<{ state: OfferState; response_id: number | null }>(em, RECORD, [
    a.offerUuid,
    f.central_id,
    f.technician_id,
    figures.distanceKm,
    figures.timeMin,
    figures.timeGiven,
    f.technician_rate,
    figures.techLat,
    figures.techLng,
  ]);
  if (r.response_id === null) {
    if (r.state === 'SIN_RESPUESTA') return null; // the window closed meanwhile: a late acceptance
    throw refusal(r.state) ?? new DomainError('acceptance.closed', { state: r.state });
  }
  const view = responseView({
    distanceKm: figures.distanceKm,
    techLat: figures.techLat,
    techLng: figures.techLng,
    timeMin: figures.timeMin,
    rate: f.technician_rate ?? 0,
    technician: { names: f.technician_names ?? '' },
  });
  await publishOfferEvent(rt, { uuid: a.offerUuid, generatorId: f.generator_id }, 'offer.response', { response: view });
  return { kind: 'recorded' };
}

/** PUT /aceptacion and the technician's `offer.respond`: a validated body, the caller's answer. */
export async function acceptOffer(rt: Runtime, caller: ApiUser, input: AcceptanceInput): Promise<AcceptanceOutcome> {
  const a = parseAcceptance(input);
  const em = rt.orm.em.fork();
  const quick = await recordQuickly(rt, em, caller, a);
  if (quick) return quick;
  const parties = await findParties(em, caller, a);
  const early = refusal(parties.offer.state);
  if (early) throw early;
  const figures = await computeResponseFigures(
    em,
    { offerUuid: parties.offer.uuid, technicianId: parties.technician.id, lat: a.position?.lat, lng: a.position?.lng, minutes: a.minutes },
    rt.config.averageSpeedKmh,
  );
  const decision = await em.transactional((tx) => decide(rt, tx, parties, figures));
  if (decision.kind === 'late') return forwardLateAcceptance(rt, parties, decision.selection);
  if (decision.kind === 'own') await announceSelection(rt, decision.selection, { dispatch: true, closed: 'assigned-own' });
  return { kind: 'recorded' };
}
