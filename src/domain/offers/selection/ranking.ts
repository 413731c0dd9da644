/**
 * The best-response rule (decisions D2): lowest arrival time first; ties go
 * to the higher rating, then the shorter distance, then the earlier response.
 */
import type { OfferResponse } from '../../../db/entities/index.js';

type Ranked = Pick<OfferResponse, 'id' | 'timeMin' | 'rate' | 'distanceKm' | 'updatedAt'>;

export function compareResponses(a: Ranked, b: Ranked): number {
  return (
    a.timeMin - b.timeMin ||
    b.rate - a.rate ||
    a.distanceKm - b.distanceKm ||
    a.updatedAt.getTime() - b.updatedAt.getTime() ||
    a.id - b.id
  );
}

/** The responses best first (a new array). */
export function rankResponses<R extends Ranked>(responses: readonly R[]): R[] {
  return [...responses].sort(compareResponses);
}

/** One line of the stored ranking (offer.ranking): why a response won or lost. */
export interface RankingEntry {
  position: number;
  responseId: number;
  centralId: number;
  technicianId: number;
  time: number;
  timeGiven: boolean;
  rate: number;
  distance: number;
  respondedAt: string;
}

/** A response as the ranking records it: the entity, or the columns a batch read (closing.ts). */
export type RankedResponse = Ranked & Pick<OfferResponse, 'timeGiven'> & { central: { id: number }; technician: { id: number } };

export function rankingEntries(ranked: readonly RankedResponse[]): RankingEntry[] {
  return ranked.map((r, i) => ({
    position: i + 1,
    responseId: r.id,
    centralId: r.central.id,
    technicianId: r.technician.id,
    time: r.timeMin,
    timeGiven: r.timeGiven,
    rate: r.rate,
    distance: r.distanceKm,
    respondedAt: r.updatedAt.toISOString(),
  }));
}
