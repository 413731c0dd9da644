/**
 * The context the domain works in, as the domain needs it: its ports. The
 * domain states what it uses (the configuration, the logger, the ORM, Redis
 * commands, the job queues, the live-event bus, a geocoder, the acceptance
 * sends a process runs itself); `src/main/runtime.ts` builds one from the
 * real adapters and every process role hands it down. No domain file imports
 * `src/main`, `src/http` or `src/realtime` (test/architecture/boundaries.test.ts).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../../config/index.js';
import type { CredentialCache } from '../auth/cache.js';
import type { Geocoder } from '../geocoding/geocoder.js';
import type { Queues } from '../queues/queues.js';
import type { Redis } from '../queues/redis.js';
import type { ClosingRun } from './offers/selection/closingRun.js';

/** Who receives a live event (D10). */
export type Audience =
  /** the generator (API user id) that owns the offer */
  | { kind: 'generator'; apiUserId: number }
  /** one technician (technician id) */
  | { kind: 'technician'; technicianId: number }
  /** several technicians, one message on the bus (a distribution's `offer.new`): see perTechnician */
  | { kind: 'technicians'; technicianIds: number[] }
  /** every socket subscribed to an offer (generator sockets and its socketId) */
  | { kind: 'offer'; offerUuid: string; apiUserId: number }
  /** operators */
  | { kind: 'operators' }
  /** the customer's sockets of one service (tracking token, D14) */
  | { kind: 'customer'; offerUuid: string }
  /** the customer's sockets opened with one tracking token (D24: its revocation closes them; nothing is sent) */
  | { kind: 'trackingToken'; offerUuid: string; tokenHash: string };

export interface BusMessage {
  audience: Audience;
  event: string;
  data: unknown;
  /** with a `technicians` audience: fields for one technician (by id) laid over `data` */
  each?: Record<string, Record<string, unknown>>;
  /** with an `offer` audience, a selection (D20) carried by that event: see OfferSelection */
  selection?: OfferSelection;
}

/**
 * The technicians' side of a selection (D20), carried by the event that tells
 * the generator of it (one bus message): the event itself goes to the
 * generator only; the chosen technician's sockets get `offer.selected` with
 * `selected` and stay enrolled for the offer; every other technician socket
 * that received the offer gets `offer.closed` with `closed` and leaves it (no
 * further event of that offer).
 */
export interface OfferSelection {
  technicianId: number;
  selected: Record<string, unknown>;
  closed: Record<string, unknown>;
}

/** Live events to sockets on any API process (D10); src/realtime/bus.ts publishes them on Redis. */
export interface EventPublisher {
  publish(audience: Audience, event: string, data: unknown): Promise<void>;
  /** many events in one round trip (a pipeline), in order; resolves when all were published */
  publishMany(messages: BusMessage[]): Promise<void>;
}

/** A place held for a task a process runs after a commit (src/main/inFlight.ts): started with its task, or released. */
export interface Reservation {
  start(task: () => Promise<void>): void;
  release(): void;
}

/** The acceptance notifications (6.1) a worker sends itself right after a selection's commit, without the queue's hop. */
export interface AcceptanceSends {
  readonly size: number;
  has(key: string): boolean;
  tryStart(key: string, task: () => Promise<void>): boolean;
  reserve(key: string): Reservation | null;
  drain(): Promise<void>;
}

export interface Runtime {
  config: Config;
  log: Logger;
  orm: MikroORM;
  /** commands (queues, rate limits, health) */
  redis: Redis;
  queues: Queues;
  /** real-time events to sockets on any API process (D10) */
  events: EventPublisher;
  geocoder: Geocoder;
  /** verified API credentials for AUTH_CACHE_TTL_MS, emptied by provisioning on every process */
  authCache: CredentialCache;
  /** set by a worker that takes webhook-dispatch jobs (workers/index.ts), null elsewhere (the selection enqueues the send) */
  acceptanceSends: AcceptanceSends | null;
  /**
   * set by a worker that takes a background queue (workers/index.ts, TC-1): background work waits on it before it
   * starts, while the closing of windows is behind; null elsewhere
   */
  closingGate: { pass(queue: string): Promise<number> } | null;
  /** set by a worker that takes evaluation jobs (workers/index.ts, ISS32-4): its jobs close the windows due next; null elsewhere */
  closingRun: ClosingRun | null;
  close(): Promise<void>;
}
