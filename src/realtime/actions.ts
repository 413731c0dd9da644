/**
 * What a technician's socket messages do: the operations of src/api, invoked
 * by operationId (src/api/invoke.ts) with the technician's central as the API
 * user and the technician itself as the caller; `dniPrestador`/`dniTecnico`
 * come from the authenticated identity and every other field from the frame.
 * The reply is `<event>.result` {status, body}: the HTTP answer, built by the
 * same validator, handler, presenter and error table.
 *
 * The functions are injected (tests pass fakes); the default wiring is:
 *   respond  → acceptOffer (PUT /aceptacion, D4)
 *   position → updateTechnicianPosition (PUT /posicion-tecnico, D8), its central naming it
 *   progress → reportProgress (PUT /estado-servicio, D11), as the assigned technician
 * An action left out answers an `error` event saying it is not available.
 */
import { ApiUser } from '../db/entities/index.js';
import { AUTH_MESSAGES } from '../auth/credentials.js';
import { TECHNICIAN_TOKEN_MESSAGES, isLiveTokenHash } from '../auth/technicianToken.js';
import { errorAnswer } from '../api/errorTable.js';
import { MESSAGES, keyError, systemBody } from '../envelopes.js';
import { invoke } from '../api/invoke.js';
import type { Runtime } from '../domain/ports.js';
import type { Identity } from './auth.js';
import type { Client, Hub } from './hub.js';
import { PROTOCOL_MESSAGES, frame, type Incoming, type RespondData } from './protocol.js';

export interface ActionResult {
  status: number;
  body: unknown;
}

/** PUT /aceptacion's body (spec 2.5): the frame's fields plus the identity's. */
export type RespondInput = Omit<RespondData, 'tiempoLlegadaSitio' | 'latitudTecnico' | 'longitudTecnico'> & {
  dniPrestador: string;
  dniTecnico: string;
  tiempoLlegadaSitio?: number;
  latitudTecnico?: string;
  longitudTecnico?: string;
};

export interface PositionInput {
  dniTecnico: string;
  latitud: number;
  longitud: number;
  disponible?: boolean;
}

/** PUT /estado-servicio's body (D11) plus the reporting technician. */
export interface ProgressInput {
  id: string;
  estado: string;
  dniTecnico: string;
  technicianId: number;
  latitudTecnico?: string;
  longitudTecnico?: string;
}

export type Action<I> = (rt: Runtime, caller: ApiUser, input: I) => Promise<ActionResult>;

export interface TechnicianActions {
  respond: Action<RespondInput>;
  position: Action<PositionInput>;
  progress: Action<ProgressInput>;
}

/** The object without its undefined properties (the operations' schemas see absent, not undefined). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The operations technicians' messages invoke (see the header). */
export const technicianActions: TechnicianActions = {
  respond: (rt, caller, input) => invoke(rt, 'acceptOffer', { apiUser: caller }, defined(input)),
  // the technician's central names it by its document, as PUT /posicion-tecnico (D8)
  position: (rt, caller, input) => invoke(rt, 'updateTechnicianPosition', { apiUser: caller }, defined(input)),
  progress: (rt, caller, { technicianId, dniTecnico, ...body }) =>
    invoke(rt, 'reportProgress', { apiUser: caller, technician: { id: technicianId, dni: dniTecnico } }, defined(body)),
};

/** How many actions one socket may have running at once. */
export const MAX_INFLIGHT_PER_SOCKET = 4;

const coord = (v: number | string | null | undefined) => (v === undefined || v === null ? undefined : String(v));

type TechnicianIdentity = Extract<Identity, { kind: 'technician' }>;
type ActionMessage = Exclude<Incoming, { event: 'ping' }>;

/** The action a message calls and its input, or null when it is not wired. */
function bind(actions: Partial<TechnicianActions>, msg: ActionMessage, who: TechnicianIdentity) {
  switch (msg.event) {
    case 'offer.respond': {
      const { respond } = actions;
      if (!respond) return null;
      const input: RespondInput = {
        ...msg.data,
        dniPrestador: who.nit,
        dniTecnico: who.dniTecnico,
        tiempoLlegadaSitio: msg.data.tiempoLlegadaSitio ?? undefined,
        latitudTecnico: coord(msg.data.latitudTecnico),
        longitudTecnico: coord(msg.data.longitudTecnico),
      };
      return (rt: Runtime, caller: ApiUser) => respond(rt, caller, input);
    }
    case 'position': {
      const { position } = actions;
      if (!position) return null;
      const { latitud, longitud, disponible } = msg.data;
      const input: PositionInput = { dniTecnico: who.dniTecnico, latitud, longitud, disponible };
      return (rt: Runtime, caller: ApiUser) => position(rt, caller, input);
    }
    case 'progress': {
      const { progress } = actions;
      if (!progress) return null;
      const input: ProgressInput = {
        id: msg.data.id,
        estado: msg.data.estado,
        dniTecnico: who.dniTecnico,
        technicianId: who.technicianId,
        latitudTecnico: coord(msg.data.latitudTecnico),
        longitudTecnico: coord(msg.data.longitudTecnico),
      };
      return (rt: Runtime, caller: ApiUser) => progress(rt, caller, input);
    }
  }
}

/**
 * Runs a technician's message in its own ORM context: reloads the caller (an
 * API user deactivated since the upgrade is refused and disconnected), calls
 * the action and sends `<event>.result`. Errors become results the way the
 * HTTP error middleware shapes them.
 */
export async function runAction(
  rt: Runtime,
  hub: Hub,
  client: Client,
  msg: ActionMessage,
  actions: Partial<TechnicianActions>,
): Promise<void> {
  const who = client.identity;
  if (who.kind !== 'technician') return;
  const call = bind(actions, msg, who);
  if (!call) {
    hub.send(client, frame('error', { message: PROTOCOL_MESSAGES.unavailable, details: { event: msg.event } }, msg.ref));
    return;
  }
  const reply = (r: ActionResult) => hub.send(client, frame(`${msg.event}.result`, r, msg.ref));
  try {
    // a technician's token is checked on every use (D20)
    if (who.tokenHash && !(await isLiveTokenHash(rt.orm.em.fork(), who.tokenHash))) {
      const err = keyError(401, TECHNICIAN_TOKEN_MESSAGES.invalid);
      reply({ status: err.status, body: err.body });
      client.ws.close(4401, 'token revoked');
      return;
    }
    const caller = await rt.orm.em.fork().findOne(ApiUser, who.apiUserId);
    if (!caller || caller.status !== 'ACTIVO') {
      const err = keyError(401, AUTH_MESSAGES.keyInactive);
      reply({ status: err.status, body: err.body });
      client.ws.close(4401, 'INACTIVO');
      return;
    }
    reply(await call(rt, caller));
  } catch (err) {
    const known = errorAnswer(err, 'controller');
    if (known) return reply({ status: known.status, body: known.body });
    const body = systemBody(MESSAGES.internal);
    rt.log.error({ err, errorId: body.errorId, event: msg.event, socketId: client.id }, 'socket action failed');
    reply({ status: 500, body });
  }
}
