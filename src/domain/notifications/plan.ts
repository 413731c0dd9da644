import type { EntityManager } from '@mikro-orm/postgresql';
import type { Offer } from '../../db/entities/index.js';
import type { OfferState } from '../offers/states.js';

/**
 * Plans the state-change notifications of a move (decisions D12): creates
 * their webhook_delivery rows in the caller's transaction and returns their
 * ids, to be enqueued on the state-notification queue after commit.
 * (Filled in by the notifications work; plans nothing yet.)
 */
export async function planStateNotifications(
  _em: EntityManager,
  _offer: Offer,
  _from: OfferState | null,
  _to: OfferState,
): Promise<string[]> {
  return [];
}
