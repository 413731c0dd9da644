/**
 * A generator sees only its own offers (D3): another generator's uuid answers
 * exactly like an unknown one. A uuid that is not a UUID names no offer.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Offer } from '../../../db/entities/index.js';
import { DomainError } from '../../errors.js';
import { UUID_RE } from '../create/input.js';
import { lockOffer } from './stateMachine.js';


export const OFFER_NOT_FOUND = 'OFERTA NO ENCONTRADA';

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** The offer FOR UPDATE when it exists and `generatorId` owns it (or any offer when generatorId is null). */
export async function lockOwnOffer(em: EntityManager, uuid: string, generatorId: number | null): Promise<Offer | null> {
  if (!isUuid(uuid)) return null;
  return lockOffer(em, uuid.toLowerCase(), generatorId === null ? {} : { generator: generatorId });
}

/** An unknown offer, or another generator's (spec 7.3, D6: 404 OFERTA NO ENCONTRADA). */
export function offerNotFound(uuid?: string): DomainError<'offer.not-found'> {
  return new DomainError('offer.not-found', uuid === undefined ? {} : { uuid });
}
