/**
 * POST /no-asignacion (D6): the generator withdraws an offer nobody was
 * assigned: ABIERTA, SIN_RESPUESTA or ACEPTADA → NO_ASIGNADA. Its pending
 * evaluation and expiry jobs are removed (their processors also skip an offer
 * that is no longer ABIERTA / SIN_RESPUESTA), the responding centrals are told
 * (D12, planned by the transition) and the offer's sockets get `offer.closed`.
 */
import type { ApiUser } from '../../../db/entities/index.js';
import type { Runtime } from '../../ports.js';
import { jobId } from '../../../queues/registry.js';
import { failPending } from '../../../db/stores/deliveries.js';
import { publishOfferEvent } from '../lifecycle/events.js';
import { lockOwnOffer, offerNotFound } from '../lifecycle/ownership.js';
import { canMove, refusedMove } from '../lifecycle/stateMachine.js';
import { transition } from '../lifecycle/moves.js';

export interface WithdrawalInput {
  uuid: string;
  motivo?: string;
}

/** The error recorded on an acceptance notification left unsent by a withdrawal. */
export const WITHDRAWN_BEFORE_SENDING = 'not sent: the offer was withdrawn (POST /no-asignacion) first';

async function removeJobs(rt: Runtime, uuid: string): Promise<void> {
  for (const [queue, id] of [
    [rt.queues.get('offer-evaluation'), jobId('evaluate', uuid)],
    [rt.queues.get('offer-expiry'), jobId('expire', uuid)],
  ] as const) {
    await queue.remove(id).catch((err: unknown) => rt.log.warn({ err, uuid, jobId: id }, 'job of a withdrawn offer not removed'));
  }
}

export async function withdrawOffer(rt: Runtime, user: ApiUser, input: WithdrawalInput): Promise<void> {
  const out = await rt.orm.em.transactional(async (em) => {
    const offer = await lockOwnOffer(em, input.uuid, user.id);
    if (!offer) throw offerNotFound();
    if (!canMove(offer.state, 'NO_ASIGNADA', 'no-asignacion')) throw refusedMove(offer.state, 'no-asignacion');
    offer.motivo = input.motivo ?? null;
    await transition(em, offer, {
      to: 'NO_ASIGNADA',
      by: 'no-asignacion',
      actor: `api-user:${user.username}`,
      detail: { motivo: offer.motivo },
    });
    // An acceptance notification not yet sent must not go out for a withdrawn offer.
    await failPending(em, offer.uuid, 'acceptance', WITHDRAWN_BEFORE_SENDING);
    return { uuid: offer.uuid };
  });
  await removeJobs(rt, out.uuid);
  await publishOfferEvent(rt, { uuid: out.uuid, generatorId: user.id }, 'offer.closed', { result: 'withdrawn' });
}
