/**
 * After a transition's transaction has committed (STYLE 6): enqueue its
 * state notifications (D12) and publish the live `offer.state` event (D10).
 * Neither can fail the request: the move is committed. A lost enqueue is
 * logged and picked up by the outbox sweeper; a lost event is only logged.
 */
import type { Runtime } from '../../../main/runtime.js';
import { enqueueStateNotification } from '../../notifications/enqueue.js';
import { publishOfferEvent } from './events.js';
import type { TransitionResult } from './stateMachine.js';

export interface OfferRef {
  uuid: string;
  generatorId: number;
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

export async function announceTransition(rt: Runtime, offer: OfferRef, result: TransitionResult): Promise<void> {
  for (const deliveryId of result.notificationIds) {
    await afterCommit(rt, 'enqueue state notification', { uuid: offer.uuid, deliveryId }, () => enqueueStateNotification(rt, deliveryId));
  }
  await publishOfferEvent(rt, offer, 'offer.state', { estado: result.to, anterior: result.from, fecha: new Date().toISOString() });
}
