/**
 * Live events about one offer (decisions D10), published after commit to
 * every socket subscribed to it. A failed publish is logged, never thrown.
 */
import type { Runtime } from '../../../main/runtime.js';
import type { OfferRef } from './announce.js';

export type OfferEvent = 'offer.response' | 'offer.accepted' | 'offer.state' | 'offer.closed' | 'offer.subscribe';

export type ClosedResult = 'selected' | 'no-response' | 'withdrawn' | 'assigned-own';

export async function publishOfferEvent(rt: Runtime, offer: OfferRef, event: OfferEvent, data: Record<string, unknown>): Promise<void> {
  await rt.events
    .publish({ kind: 'offer', offerUuid: offer.uuid, apiUserId: offer.generatorId }, event, { uuid: offer.uuid, ...data })
    .catch((err: unknown) => rt.log.warn({ err, uuid: offer.uuid, event }, 'offer event not published'));
}
