/**
 * The state-change notifications of a move (decisions D12), as the move
 * plans them (src/domain/offers/lifecycle/moves.ts: written as
 * webhook_delivery rows in its transaction, enqueued on the
 * state-notification queue after commit).
 *
 * - The generator (`api_endpoint.estado`, kind `state`): every move after
 *   creation (SIN_RESPUESTA, EXPIRADA, NO_ASIGNADA, INACTIVA, CANCELADA, the
 *   progress states…) except the ones the acceptance notification (6.1)
 *   tells: → ACEPTADA, and an own-central ABIERTA → ASIGNADA.
 * - Centrals (`api_endpoint.novedad`, kind `novedad`): "not assigned"
 *   (estado NO_ASIGNADA) to the centrals that responded and lost when a
 *   response wins (ACEPTADA, or ASIGNADA by an own-central acceptance), and
 *   to every responding or assigned central on NO_ASIGNADA and INACTIVA;
 *   "cancelled" (estado CANCELADA) to the assigned central on CANCELADA;
 *   "assigned" (estado ASIGNADA, with the `servicio` the crew needs, D20) to
 *   the winning central whenever the service becomes ASIGNADA.
 * Receivers without `url_api` or without that endpoint are skipped.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiUser, Central, OfferResponse, type DeliveryKind, type Offer } from '../../db/entities/index.js';
import { profileEndpoint } from '../../webhooks/dispatch.js';
import type { OfferState } from '../offers/lifecycle/states.js';
import type { Servicio } from '../services/servicio.js';

/** The body of a state or novelty notification (D12). */
export interface StateNotice {
  id: string;
  estado: OfferState;
  fecha: string;
  detalle: string;
  /** the service's code once it has one (D16: in every state notification from ASIGNADA on) */
  codigoServicio?: string;
  /** the central's ASIGNADA novelty: what the crew needs (D20), never the customer's phone */
  servicio?: Servicio;
}

/** The winning central's novelty when the service becomes ASIGNADA (D20). */
export const ASSIGNED_DETAIL = 'EL SERVICIO FUE ASIGNADO A SU CENTRAL';

const GENERATOR_DETAIL: Partial<Record<OfferState, string>> = {
  SIN_RESPUESTA: 'NINGUNA CENTRAL RESPONDIÓ EN LA VENTANA DE 30 SEGUNDOS; LA OFERTA AÚN ACEPTA UNA RESPUESTA TARDÍA',
  EXPIRADA: 'NADIE TOMÓ LA OFERTA A TIEMPO; LA OFERTA EXPIRÓ',
  ASIGNADA: 'EL SERVICIO FUE ASIGNADO',
  EN_CAMINO: 'EL TÉCNICO VA EN CAMINO AL SITIO DEL SERVICIO',
  EN_SITIO: 'EL TÉCNICO LLEGÓ AL SITIO DEL SERVICIO',
  FINALIZADA: 'EL SERVICIO FUE FINALIZADO',
  CANCELADA: 'EL SERVICIO FUE CANCELADO',
  NO_ASIGNADA: 'EL SERVICIO NO FUE ASIGNADO Y LA OFERTA FUE RETIRADA',
  INACTIVA: 'LA ACEPTACIÓN NO FUE CONFIRMADA; EL SERVICIO QUEDÓ INACTIVO',
};

const NOT_ASSIGNED_REASON: Partial<Record<OfferState, string>> = {
  ACEPTADA: 'SE SELECCIONÓ LA RESPUESTA DE OTRA CENTRAL',
  ASIGNADA: 'EL SERVICIO FUE ASIGNADO A OTRA CENTRAL',
  NO_ASIGNADA: 'EL GENERADOR RETIRÓ LA OFERTA',
  INACTIVA: 'EL GENERADOR NO CONFIRMÓ LA ACEPTACIÓN',
};

function withReason(text: string, motivo: string | null | undefined): string {
  return motivo ? `${text}. MOTIVO: ${motivo}` : text;
}

/** A central's "not assigned" detail: why, by the move that left it out. */
function notAssigned(to: OfferState, motivo: string | null = null): string {
  return withReason(`EL SERVICIO NO FUE ASIGNADO A SU CENTRAL: ${NOT_ASSIGNED_REASON[to]}`, motivo);
}

/**
 * D12: every move after creation goes to the generator, whoever caused it,
 * except the two the acceptance notification (6.1) itself tells: a selection
 * (→ ACEPTADA) and an own-central acceptance (ABIERTA → ASIGNADA, D4b).
 */
export function notifiesGenerator(from: OfferState | null, to: OfferState): boolean {
  if (from === null) return false;
  return !(to === 'ACEPTADA' || (from === 'ABIERTA' && to === 'ASIGNADA'));
}

/** A receiver as the notices need it: the entity, or the columns a batch read (closing.ts). */
export type NoticeReceiver = Pick<ApiUser, 'id' | 'urlApi' | 'apiEndpoint'>;

export interface Novelty<U extends NoticeReceiver = ApiUser> {
  central: { apiUser?: U | null };
  estado: 'NO_ASIGNADA' | 'CANCELADA' | 'ASIGNADA';
  detalle: string;
  /** with ASIGNADA (D20) */
  servicio?: Servicio;
}

/**
 * The "not assigned" novelties of a selection (→ ACEPTADA, or ASIGNADA by an
 * own-central acceptance): every central that responded, in the order of the
 * responses' ids, but the winner's.
 */
export function selectionNovelties<C extends { id: number }>(
  responses: ReadonlyArray<{ id: number; central: C }>,
  winnerCentralId: number | undefined,
  to: 'ACEPTADA' | 'ASIGNADA',
): Array<{ central: C; estado: 'NO_ASIGNADA'; detalle: string }> {
  const centrals = new Map<number, C>([...responses].sort((a, b) => a.id - b.id).map((r) => [r.central.id, r.central]));
  if (winnerCentralId !== undefined) centrals.delete(winnerCentralId);
  const detalle = notAssigned(to);
  return [...centrals.values()].map((central) => ({ central, estado: 'NO_ASIGNADA', detalle }));
}

async function centralNovelties(
  em: EntityManager,
  offer: Offer,
  from: OfferState | null,
  to: OfferState,
  servicio: Servicio | null,
): Promise<Novelty[]> {
  const novelties = await otherNovelties(em, offer, from, to);
  // D20: the winning central is told its service, after the losers' "not assigned"
  const assignedId = offer.assignedCentral?.id ?? null;
  if (to === 'ASIGNADA' && servicio && assignedId !== null) {
    const central = await em.findOneOrFail(Central, assignedId, { populate: ['apiUser'] });
    novelties.push({ central, estado: 'ASIGNADA', detalle: ASSIGNED_DETAIL, servicio });
  }
  return novelties;
}

async function otherNovelties(em: EntityManager, offer: Offer, from: OfferState | null, to: OfferState): Promise<Novelty[]> {
  const assignedId = offer.assignedCentral?.id ?? null;
  if (to === 'CANCELADA') {
    if (assignedId === null) return [];
    const central = await em.findOneOrFail(Central, assignedId, { populate: ['apiUser'] });
    return [{ central, estado: 'CANCELADA', detalle: withReason('EL GENERADOR CANCELÓ EL SERVICIO', offer.motivo) }];
  }
  const selection = (to === 'ACEPTADA' || to === 'ASIGNADA') && (from === 'ABIERTA' || from === 'SIN_RESPUESTA');
  if (!selection && to !== 'NO_ASIGNADA' && to !== 'INACTIVA') return [];
  const responses = await em.find(OfferResponse, { offer: offer.uuid }, { populate: ['central.apiUser'], orderBy: { id: 'asc' } });
  if (selection) {
    const winner = assignedId ?? responses.find((r) => r.id === offer.acceptedResponse)?.central.id;
    return selectionNovelties(responses, winner, to as 'ACEPTADA' | 'ASIGNADA');
  }
  const centrals = new Map<number, Central>(responses.map((r) => [r.central.id, r.central]));
  if (assignedId !== null && !centrals.has(assignedId)) {
    centrals.set(assignedId, await em.findOneOrFail(Central, assignedId, { populate: ['apiUser'] }));
  }
  const detalle = notAssigned(to, to === 'NO_ASIGNADA' ? offer.motivo : null);
  return [...centrals.values()].map((central) => ({ central, estado: 'NO_ASIGNADA', detalle }));
}

/** One notice to plan: who gets it, where, and its body (the service's code added once it has one, D16). */
export interface Notice<U extends NoticeReceiver = ApiUser> {
  kind: Extract<DeliveryKind, 'state' | 'novedad'>;
  receiver: U;
  url: string;
  body: StateNotice;
}

/**
 * The notices of a move from what is already known: the generator (when the
 * move notifies it) and the centrals' novelties. Pure, so the state machine
 * and a batch of closing windows plan the same notices.
 */
export function stateNotices<U extends NoticeReceiver>(
  offer: Pick<Offer, 'uuid' | 'motivo' | 'codigoServicio'>,
  generator: U | null,
  from: OfferState | null,
  to: OfferState,
  novelties: ReadonlyArray<Novelty<U>>,
  fecha: string,
  /** the generator's detail when the move names its own (D20: a change of technician) */
  generatorDetail?: string,
): Array<Notice<U>> {
  const code = offer.codigoServicio ? { codigoServicio: offer.codigoServicio } : {};
  const notices: Array<Notice<U>> = [];
  if (generator && notifiesGenerator(from, to)) {
    const url = profileEndpoint(generator, 'estado');
    const detalle = generatorDetail ?? withReason(GENERATOR_DETAIL[to] ?? `EL SERVICIO PASÓ AL ESTADO ${to}`, to === 'CANCELADA' || to === 'NO_ASIGNADA' ? offer.motivo : null);
    if (url) notices.push({ kind: 'state', receiver: generator, url, body: { id: offer.uuid, estado: to, fecha, detalle, ...code } });
  }
  for (const n of novelties) {
    const receiver = n.central.apiUser;
    const url = receiver ? profileEndpoint(receiver, 'novedad') : null;
    // the servicio's code is the move's (an assignment gives it, D6)
    const servicio = n.servicio ? { servicio: { ...n.servicio, codigoServicio: offer.codigoServicio ?? n.servicio.codigoServicio } } : {};
    if (receiver && url) notices.push({ kind: 'novedad', receiver, url, body: { id: offer.uuid, estado: n.estado, fecha, detalle: n.detalle, ...code, ...servicio } });
  }
  return notices;
}

/**
 * What the notices of a move need that the unit of work reads: the generator
 * (when the move notifies it) and the centrals' novelties; `servicio` when
 * the move reaches ASIGNADA (D20).
 */
export async function stateNoticeFacts(
  em: EntityManager,
  offer: Offer,
  from: OfferState | null,
  to: OfferState,
  servicio: Servicio | null = null,
): Promise<{ generator: ApiUser | null; novelties: Novelty[] }> {
  const generator = notifiesGenerator(from, to) ? await em.findOneOrFail(ApiUser, offer.generator.id) : null;
  return { generator, novelties: await centralNovelties(em, offer, from, to, servicio) };
}
