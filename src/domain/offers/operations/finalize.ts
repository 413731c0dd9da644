/**
 * POST /finalize (spec 4.4): an active service (ASIGNADA, EN_CAMINO,
 * EN_SITIO) → FINALIZADA. An operator may finalize any service, a generator
 * only its own; the state notification goes out (D12).
 */
import type { ApiUser, OperatorUser } from '../../../db/entities/index.js';
import { DomainError } from '../../errors.js';
import type { Runtime } from '../../ports.js';
import { lockOwnOffer } from '../lifecycle/ownership.js';
import { canMove, refusedMove } from '../lifecycle/stateMachine.js';
import { transition } from '../lifecycle/moves.js';

/** A generator, or an operator as its token names it. */
export type FinalizeCaller = { apiUser: ApiUser } | { operator: Pick<OperatorUser, 'id' | 'username' | 'role'> };

export async function finalizeService(rt: Runtime, caller: FinalizeCaller, uuid: string): Promise<void> {
  const generatorId = 'apiUser' in caller ? caller.apiUser.id : null;
  const actor = 'apiUser' in caller ? `api-user:${caller.apiUser.username}` : `operator:${caller.operator.username}`;
  await rt.orm.em.transactional(async (em) => {
    const offer = await lockOwnOffer(em, uuid, generatorId);
    if (!offer) throw new DomainError('offer.not-found', { uuid });
    if (!canMove(offer.state, 'FINALIZADA', 'finalize')) throw refusedMove(offer.state, 'finalize');
    await transition(em, offer, { to: 'FINALIZADA', by: 'finalize', actor });
  });
}
