/**
 * After a transaction has committed (STYLE 6): the steps it declared. A
 * move declares its own (moves.ts: enqueue its state
 * notifications (D12) and publish the live `offer.state` event (D10)) on the
 * transaction it runs in, so no caller can forget them; other code declares
 * its steps with `onCommit`. They run in order (consecutive transitions'
 * announcements together, see announceTransitions), once the root transaction has
 * committed (MikroORM's afterTransactionCommit, subscribed in
 * src/main/runtime.ts), and are dropped when it rolls back. None can fail
 * what is committed: a lost enqueue is logged and picked up by the outbox
 * sweeper; a lost event is only logged.
 */
import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Runtime } from '../../ports.js';
import { enqueueStateNotification } from '../../notifications/enqueue.js';
import { operatorStatesMessage, publishOfferEvents } from './events.js';
import type { TransitionResult } from './stateMachine.js';

export interface OfferRef {
  uuid: string;
  generatorId: number;
}

/** A step that follows a commit. */
export type CommitStep = (rt: Runtime) => Promise<void>;

/** A move's announcement, declared by the move (moves.ts) on the transaction that makes it. */
export interface Announcement {
  offer: OfferRef;
  result: TransitionResult;
}

/** The steps of each open root transaction, by the EntityManager fork it runs in. */
const pending = new WeakMap<object, Array<CommitStep | Announcement>>();

function stepsOf(em: EntityManager): Array<CommitStep | Announcement> {
  const steps = pending.get(em);
  if (!steps) {
    throw new Error('after-commit steps need a root transaction: run this inside em.transactional() of the runtime\'s ORM, not nested in another');
  }
  return steps;
}

/** Throws unless `em` runs a root transaction whose commit will run its steps. */
export function requireCommitSteps(em: EntityManager): void {
  stepsOf(em);
}

/** Declares a step to run after `em`'s transaction commits. */
export function onCommit(em: EntityManager, step: CommitStep): void {
  stepsOf(em).push(step);
}

/**
 * Runs a step that follows a commit (an enqueue, an event): its failure is
 * logged, never thrown, since what it follows is already committed; the outbox
 * sweeper repairs a lost enqueue.
 */
export async function afterCommit(rt: Runtime, step: string, context: Record<string, unknown>, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    rt.log.warn({ err, step, ...context }, 'step after commit failed; the outbox sweeper repairs lost enqueues');
  }
}

/**
 * What transitions declare: their state notifications' jobs, then their live
 * `offer.state` events, and one `offer.states` to operators (D23). Consecutive moves of one transaction (a batch of
 * closing windows) are announced together: the jobs added at once on the one
 * connection (Redis keeps their order) and the events in one pipeline, in the
 * order of the moves, instead of a round trip waited for per job and event.
 */
export async function announceTransitions(rt: Runtime, moves: readonly Announcement[]): Promise<void> {
  await Promise.all(
    moves.flatMap(({ offer, result }) =>
      result.notificationIds.map((deliveryId) =>
        afterCommit(rt, 'enqueue state notification', { uuid: offer.uuid, deliveryId }, () => enqueueStateNotification(rt, deliveryId)),
      ),
    ),
  );
  const fecha = new Date().toISOString();
  const events = moves.map(({ offer, result }) => ({ offer, event: 'offer.state' as const, data: { estado: result.to, anterior: result.from, fecha } }));
  const operators = operatorStatesMessage(
    moves.map(({ offer, result }) => ({ uuid: offer.uuid, estado: result.to, anterior: result.from })),
    fecha,
  );
  await publishOfferEvents(rt, events, [operators]);
}

/** Declares the announcement of a move on the transaction that makes it. */
export function announceOnCommit(em: EntityManager, offer: OfferRef, result: TransitionResult): void {
  stepsOf(em).push({ offer, result });
}

/** The MikroORM subscriber that runs the declared steps after each root transaction's commit. */
export class CommitSteps implements EventSubscriber {
  constructor(private readonly rt: Runtime) {}

  afterTransactionStart(args: TransactionEventArgs): void {
    pending.set(args.em, []);
  }

  async afterTransactionCommit(args: TransactionEventArgs): Promise<void> {
    const steps = pending.get(args.em) ?? [];
    pending.delete(args.em);
    let moves: Announcement[] = [];
    const announceMoves = async () => {
      const batch = moves;
      moves = [];
      if (batch.length) await afterCommit(this.rt, 'announce transitions', {}, () => announceTransitions(this.rt, batch));
    };
    for (const step of steps) {
      if (typeof step !== 'function') {
        moves.push(step);
        continue;
      }
      await announceMoves();
      await afterCommit(this.rt, 'after commit', {}, () => step(this.rt));
    }
    await announceMoves();
  }

  afterTransactionRollback(args: TransactionEventArgs): void {
    pending.delete(args.em);
  }
}
