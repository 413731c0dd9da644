/**
 * The sockets one API process holds, and who gets each bus event (D10):
 * - generator → every socket of that API user;
 * - technician → that technician's sockets (an `offer.new` also enrols them
 *   for the offer's `offer.state` and `offer.closed`); technicians → each of
 *   them so, with its own fields (one bus message per distribution);
 * - offer → the owning generator's sockets (never another generator's) and
 *   the technician sockets that received the offer (until one or two sweeps
 *   after the offer reaches a final state, so an `offer.closed` published just
 *   after that state still reaches them); an event that carries a selection
 *   (D20, BusMessage.selection) goes to the generator only, while the chosen
 *   technician gets `offer.selected` (and is enrolled) and the others
 *   `offer.closed`, their enrolment dropped: no further event of that offer
 *   reaches them; `offer.subscribe`
 *   {uuid, socketId} (a socketId sent to POST /oferta) is acknowledged to that
 *   socket with `offer.subscribed` only when it belongs to the same generator;
 * - operators → operator sockets.
 * - customer → the customer sockets of that service; a `service.position`
 *   at most once per POSITION_NOTICE_MS per service (D24: each notice makes
 *   every open page refetch), the latest one delivered when the window ends;
 * - trackingToken → nothing is sent: the sockets opened with that token are
 *   closed (4401, a sign-out, D24).
 * Each event is serialized once. A socket whose unsent bytes pass the bound is
 * terminated instead of buffering more (slow client).
 */
import type { Logger } from 'pino';
import { WebSocket } from 'ws';
import { OFFER_STATES, type OfferState } from '../domain/offers/lifecycle/states.js';
import { TRANSITIONS } from '../domain/offers/lifecycle/stateMachine.js';
import type { Identity, Recheck } from './auth.js';
import { perTechnician, type BusMessage } from './bus.js';
import type { OfferSelection } from '../domain/ports.js';
import { frame } from './protocol.js';

export interface Client {
  id: string;
  ws: WebSocket;
  identity: Identity;
  /** answered the last ping (or sent something) */
  alive: boolean;
  /** actions running for this socket */
  inflight: number;
  /** offers whose `offer.new` this technician socket received */
  offers: Set<string>;
  /** how its credential is checked again while it is open (D24) */
  recheck?: Recheck;
}

/** The customer's notice of the technician's position (D14), coalesced per service (D24). */
export const POSITION_EVENT = 'service.position';

/** The close code of a customer socket whose tracking token was signed out ("Salir", D24). */
export const TRACKING_SIGNED_OUT_CLOSE = 4401;

/** Offer events a technician who received the offer gets; responses and the selection name other technicians. */
const TECHNICIAN_OFFER_EVENTS = new Set(['offer.state', 'offer.closed']);

/** States no move leaves (from the D1 table): the offer's technician enrolments end there. */
const FINAL_STATES = new Set<string>(OFFER_STATES.filter((s: OfferState) => !TRANSITIONS.some((m) => m.from === s)));

function field(data: unknown, key: string): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const v = (data as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
}

function addTo<K>(map: Map<K, Set<Client>>, key: K, c: Client): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(c);
}

function removeFrom<K>(map: Map<K, Set<Client>>, key: K, c: Client): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(c);
  if (set.size === 0) map.delete(key);
}

export class Hub {
  private readonly clients = new Map<string, Client>();
  private readonly generators = new Map<number, Set<Client>>();
  private readonly technicians = new Map<number, Set<Client>>();
  private readonly offerTechnicians = new Map<string, Set<Client>>();
  private readonly operators = new Set<Client>();
  /** customers' sockets by the service their tracking token names (D14) */
  private readonly customers = new Map<string, Set<Client>>();
  /** offers that reached a final state since the last sweep, and before it */
  private finalNow = new Set<string>();
  private finalBefore = new Set<string>();

  /** per service: when its last `service.position` went out, and the one held back for the end of the window */
  private readonly positionNotices = new Map<string, { sentAt: number; held?: Buffer; timer?: NodeJS.Timeout }>();

  constructor(
    private readonly maxBufferBytes: number,
    private readonly log: Logger,
    /** POSITION_NOTICE_MS (0: every notice goes out) */
    private readonly positionNoticeMs = 0,
  ) {}

  get size(): number {
    return this.clients.size;
  }

  /** offers with technician sockets enrolled */
  get trackedOffers(): number {
    return this.offerTechnicians.size;
  }

  all(): IterableIterator<Client> {
    return this.clients.values();
  }

  add(c: Client): void {
    this.clients.set(c.id, c);
    const id = c.identity;
    if (id.kind === 'generator') addTo(this.generators, id.apiUserId, c);
    else if (id.kind === 'technician') addTo(this.technicians, id.technicianId, c);
    else if (id.kind === 'customer') addTo(this.customers, id.offerUuid, c);
    else this.operators.add(c);
  }

  remove(c: Client): void {
    if (!this.clients.delete(c.id)) return;
    const id = c.identity;
    if (id.kind === 'generator') removeFrom(this.generators, id.apiUserId, c);
    else if (id.kind === 'technician') removeFrom(this.technicians, id.technicianId, c);
    else if (id.kind === 'customer') removeFrom(this.customers, id.offerUuid, c);
    else this.operators.delete(c);
    for (const uuid of c.offers) removeFrom(this.offerTechnicians, uuid, c);
    c.offers.clear();
  }

  /** Sends one serialized frame, or terminates a socket that does not keep up. */
  send(c: Client, text: string | Buffer): void {
    if (c.ws.readyState !== WebSocket.OPEN) return;
    if (c.ws.bufferedAmount > this.maxBufferBytes) {
      this.log.warn({ socketId: c.id, kind: c.identity.kind, buffered: c.ws.bufferedAmount }, 'slow socket terminated');
      c.ws.terminate();
      return;
    }
    c.ws.send(text, { binary: false });
  }

  /**
   * Delivers a technician's event to one of its sockets only (a reconnect's
   * resync, D20): an `offer.new` enrols that socket for the offer's events.
   */
  sendTo(c: Client, msg: BusMessage): void {
    const uuid = msg.event === 'offer.new' ? field(msg.data, 'uuid') : undefined;
    if (uuid && this.clients.get(c.id) === c) {
      addTo(this.offerTechnicians, uuid, c);
      c.offers.add(uuid);
    }
    this.send(c, frame(msg.event, msg.data));
  }

  /** Delivers a bus event to the local sockets entitled to it. */
  route(msg: BusMessage): void {
    if (msg.audience.kind === 'technicians') {
      // only the technicians with a socket here: under a burst most offers reach none of this process's sockets
      for (const one of perTechnician(msg, (id) => this.technicians.has(id))) this.route(one);
      return;
    }
    const { audience, event, data } = msg;
    const targets = new Set<Client>();
    switch (audience.kind) {
      case 'generator':
        for (const c of this.generators.get(audience.apiUserId) ?? []) targets.add(c);
        break;
      case 'technician': {
        const uuid = event === 'offer.new' ? field(data, 'uuid') : undefined;
        for (const c of this.technicians.get(audience.technicianId) ?? []) {
          targets.add(c);
          if (uuid) {
            addTo(this.offerTechnicians, uuid, c);
            c.offers.add(uuid);
          }
        }
        break;
      }
      case 'offer': {
        if (event === 'offer.subscribe') return this.subscribe(audience.offerUuid, audience.apiUserId, field(data, 'socketId'));
        for (const c of this.generators.get(audience.apiUserId) ?? []) targets.add(c);
        if (msg.selection) this.select(audience.offerUuid, msg.selection);
        else if (TECHNICIAN_OFFER_EVENTS.has(event)) {
          for (const c of this.offerTechnicians.get(audience.offerUuid) ?? []) targets.add(c);
        }
        // The customer follows its service's state (D14).
        if (event === 'offer.state') for (const c of this.customers.get(audience.offerUuid) ?? []) targets.add(c);
        const enrolled = this.offerTechnicians.has(audience.offerUuid);
        if (enrolled && event === 'offer.state' && FINAL_STATES.has(field(data, 'estado') ?? '')) this.finalNow.add(audience.offerUuid);
        break;
      }
      case 'operators':
        for (const c of this.operators) targets.add(c);
        break;
      case 'customer':
        if (event === POSITION_EVENT && this.positionNoticeMs > 0) return this.coalescePosition(audience.offerUuid, Buffer.from(frame(event, data)));
        for (const c of this.customers.get(audience.offerUuid) ?? []) targets.add(c);
        break;
      case 'trackingToken':
        for (const c of this.customers.get(audience.offerUuid) ?? []) {
          if (c.identity.kind === 'customer' && c.identity.tokenHash === audience.tokenHash) c.ws.close(TRACKING_SIGNED_OUT_CLOSE, 'tracking token revoked');
        }
        return;
    }
    if (targets.size === 0) return;
    // encoded once for every socket (ws would otherwise convert the string per send)
    const payload = Buffer.from(frame(event, data));
    for (const c of targets) this.send(c, payload);
  }

  /**
   * D24: the service's customer sockets get a position notice at once when
   * none went out in the last POSITION_NOTICE_MS; otherwise the newest is
   * held and goes out when the window ends (one timer per service at most).
   */
  private coalescePosition(uuid: string, payload: Buffer): void {
    const now = Date.now();
    const state = this.positionNotices.get(uuid);
    const deliver = (p: Buffer) => {
      for (const c of this.customers.get(uuid) ?? []) this.send(c, p);
    };
    if (!state || (now - state.sentAt >= this.positionNoticeMs && !state.timer)) {
      this.positionNotices.set(uuid, { sentAt: now });
      deliver(payload);
      return;
    }
    state.held = payload;
    if (state.timer) return;
    state.timer = setTimeout(
      () => {
        const held = state.held;
        this.positionNotices.set(uuid, { sentAt: Date.now() });
        if (held) deliver(held);
      },
      Math.max(0, state.sentAt + this.positionNoticeMs - now),
    );
    state.timer.unref();
  }

  /** Forgets the position windows (and their timers) older than the window: run on each heartbeat, and at close. */
  prunePositionNotices(all = false): void {
    const now = Date.now();
    for (const [uuid, state] of this.positionNotices) {
      if (!all && (state.timer || now - state.sentAt < this.positionNoticeMs)) continue;
      clearTimeout(state.timer);
      this.positionNotices.delete(uuid);
    }
  }

  /** D20: the chosen technician's sockets get `offer.selected` and follow the offer; the others get `offer.closed` and leave it. */
  private select(uuid: string, sel: OfferSelection): void {
    const enrolled = this.offerTechnicians.get(uuid);
    const losers = [...(enrolled ?? [])].filter((c) => c.identity.kind !== 'technician' || c.identity.technicianId !== sel.technicianId);
    if (losers.length) {
      const closed = Buffer.from(frame('offer.closed', sel.closed));
      for (const c of losers) {
        this.send(c, closed);
        removeFrom(this.offerTechnicians, uuid, c);
        c.offers.delete(uuid);
      }
    }
    const winners = this.technicians.get(sel.technicianId);
    if (!winners?.size) return;
    const selected = Buffer.from(frame('offer.selected', sel.selected));
    for (const c of winners) {
      this.send(c, selected);
      addTo(this.offerTechnicians, uuid, c);
      c.offers.add(uuid);
    }
  }

  private subscribe(uuid: string, apiUserId: number, socketId: string | undefined): void {
    const c = socketId ? this.clients.get(socketId) : undefined;
    if (!c) return; // held by another process, or gone
    if (c.identity.kind !== 'generator' || c.identity.apiUserId !== apiUserId) {
      this.log.warn({ socketId, uuid }, 'socketId of another client ignored');
      return;
    }
    this.send(c, frame('offer.subscribed', { uuid }));
  }

  /** Ends the enrolments of offers that reached a final state before the previous sweep (run on each heartbeat). */
  sweep(): void {
    for (const uuid of this.finalBefore) {
      for (const c of this.offerTechnicians.get(uuid) ?? []) c.offers.delete(uuid);
      this.offerTechnicians.delete(uuid);
    }
    this.finalBefore = this.finalNow;
    this.finalNow = new Set();
  }
}
