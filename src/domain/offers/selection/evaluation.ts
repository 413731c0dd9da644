/**
 * The end of the response window (decisions D2) and of an offer's life
 * (D1: OFFER_MAX_OPEN_MS). Both lock the offer and do nothing unless it is
 * still in the state they act on, so a repeated or late job is harmless.
 */
import { OfferResponse } from '../../../db/entities/index.js';
import type { Runtime } from '../../../main/runtime.js';
import { resumeAcceptance } from './acceptanceNotification.js';
import { publishOfferEvent } from '../lifecycle/events.js';
import { rankResponses } from './ranking.js';
import { announceSelection, selectResponse } from './selection.js';
import { lockOffer, transition } from '../lifecycle/stateMachine.js';

const ACTOR = 'system:evaluation';

/** ABIERTA → ACEPTADA with the best response, or → SIN_RESPUESTA without any. Returns what happened. */
export async function evaluateOffer(rt: Runtime, uuid: string): Promise<'selected' | 'no-response' | 'nothing'> {
  const outcome = await rt.orm.em.fork().transactional(async (em) => {
    const offer = await lockOffer(em, uuid);
    if (!offer || offer.state !== 'ABIERTA') return null;
    const responses = await em.find(OfferResponse, { offer: uuid }, { populate: ['central', 'technician'] });
    if (responses.length === 0) {
      await transition(em, offer, { to: 'SIN_RESPUESTA', by: 'evaluacion', actor: ACTOR });
      return { kind: 'no-response' as const, ref: { uuid, generatorId: offer.generator.id } };
    }
    const ranked = rankResponses(responses);
    const selection = await selectResponse(em, rt.config, offer, ranked[0], ranked, { to: 'ACEPTADA', by: 'evaluacion', actor: ACTOR });
    return { kind: 'selected' as const, selection };
  });
  if (!outcome) {
    await resumeAcceptance(rt, uuid);
    return 'nothing';
  }
  if (outcome.kind === 'selected') {
    await announceSelection(rt, outcome.selection, { dispatch: true, closed: 'selected' });
  } else {
    await publishOfferEvent(rt, outcome.ref, 'offer.closed', { result: 'no-response' });
  }
  return outcome.kind;
}

/** SIN_RESPUESTA → EXPIRADA; anything else stays as it is. */
export async function expireOffer(rt: Runtime, uuid: string): Promise<boolean> {
  const outcome = await rt.orm.em.fork().transactional(async (em) => {
    const offer = await lockOffer(em, uuid);
    if (!offer || offer.state !== 'SIN_RESPUESTA') return null;
    await transition(em, offer, { to: 'EXPIRADA', by: 'expiracion', actor: 'system:expiry' });
    return true;
  });
  if (!outcome) {
    await resumeAcceptance(rt, uuid);
    return false;
  }
  return true;
}
