/**
 * POST /cancelacion (D6): ASIGNADA, EN_CAMINO or EN_SITIO → CANCELADA; the
 * assigned central is told (D12 novelty, planned by the transition).
 */
import { Central, type ApiUser } from '../../../db/entities/index.js';
import type { Runtime } from '../../ports.js';
import { lockOwnOffer, offerNotFound } from '../lifecycle/ownership.js';
import { canMove, refusedMove } from '../lifecycle/stateMachine.js';
import { transition } from '../lifecycle/moves.js';

export interface CancellationInput {
  uuid: string;
  motivo?: string;
}

export async function cancelService(rt: Runtime, user: ApiUser, input: CancellationInput): Promise<{ centralName: string }> {
  const out = await rt.orm.em.transactional(async (em) => {
    const offer = await lockOwnOffer(em, input.uuid, user.id);
    if (!offer) throw offerNotFound();
    if (!canMove(offer.state, 'CANCELADA', 'cancelacion')) throw refusedMove(offer.state, 'cancelacion');
    const centralId = offer.assignedCentral?.id;
    if (centralId === undefined) throw new Error(`offer ${offer.uuid} is ${offer.state} without an assigned central`);
    const central = await em.findOneOrFail(Central, centralId);
    offer.motivo = input.motivo ?? null;
    await transition(em, offer, {
      to: 'CANCELADA',
      by: 'cancelacion',
      actor: `api-user:${user.username}`,
      detail: { motivo: offer.motivo },
    });
    return { uuid: offer.uuid, centralName: central.name };
  });
  return { centralName: out.centralName };
}
