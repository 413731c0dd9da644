/**
 * After a transition's transaction has committed (STYLE 6): enqueue its
 * state notifications (D12) and publish the live `offer.state` event (D10).
 */
import type { Runtime } from '../../main/runtime.js';
import { jobId } from '../../queues/registry.js';
import type { TransitionResult } from './stateMachine.js';

export interface OfferRef {
  uuid: string;
  generatorId: number;
}

export async function announceTransition(rt: Runtime, offer: OfferRef, result: TransitionResult): Promise<void> {
  for (const deliveryId of result.notificationIds) {
    await rt.queues.add('state-notification', 'notify', { deliveryId }, { jobId: jobId('notify', deliveryId) });
  }
  await rt.events
    .publish({ kind: 'offer', offerUuid: offer.uuid, apiUserId: offer.generatorId }, 'offer.state', {
      uuid: offer.uuid,
      estado: result.to,
      anterior: result.from,
      fecha: new Date().toISOString(),
    })
    .catch((err: unknown) => rt.log.warn({ err, uuid: offer.uuid }, 'offer.state event not published'));
}
