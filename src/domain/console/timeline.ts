/**
 * An offer's timeline for operators (issue 11, D18): its transitions (actor,
 * time, technician position), the D2 ranking with each response's figures
 * (time, whether it was given or estimated, rate, distance, when it came) so
 * anyone sees why the winner won, who received the offer, and every delivery
 * with its attempts. A fixed number of statements, whatever the offer's size.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Offer } from '../../db/entities/index.js';
import { apiUserNames } from '../../db/stores/parties.js';
import { recipientTimeline } from '../../db/stores/recipients.js';
import { responsesForTimeline } from '../../db/stores/responses.js';
import { offerTransitions } from '../../db/stores/transitions.js';
import { offerDeliveries, type DeliveryView } from '../deliveries/log.js';
import { findExpediente } from '../services/expediente.js';
import { compareResponses } from '../offers/selection/ranking.js';

export interface Timeline {
  offer: Offer;
  generator: string;
  transitions: Array<{ from: string | null; to: string; actor: string; at: string; techLat: number | null; techLng: number | null }>;
  /** ranked best first (D2: time, then rate, then distance, then who answered first) */
  ranking: Array<{
    position: number;
    central: string;
    technician: string;
    timeMin: number;
    timeGiven: boolean;
    rate: number;
    distanceKm: number;
    respondedAt: string;
    winner: boolean;
  }>;
  recipients: Array<{ kind: string; central: string; technician: string | null; channel: string; distanceKm: number | null; notifiedAt: string | null; push: string | null }>;
  deliveries: DeliveryView[];
}

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

export async function offerTimeline(em: EntityManager, ref: string): Promise<Timeline | null> {
  const offer = await findExpediente(em, ref);
  if (!offer) return null;
  const [generator, transitions, responses, recipients, deliveries] = await Promise.all([
    apiUserNames(em, offer.generator.id),
    offerTransitions(em, offer.uuid),
    responsesForTimeline(em, offer.uuid),
    recipientTimeline(em, offer.uuid),
    offerDeliveries(em, offer.uuid),
  ]);
  // The stored ranking (made at selection) gives the order; responses not in it (none selected yet) follow D2's order.
  const stored = (offer.ranking ?? []) as Array<{ responseId: number; position: number }>;
  const position = new Map(stored.map((e) => [e.responseId, e.position]));
  const figures = (r: (typeof responses)[number]) => ({ id: Number(r.id), timeMin: r.time_min, rate: r.rate, distanceKm: r.distance_km, updatedAt: new Date(r.updated_at) });
  const ordered = [...responses].sort(
    (a, b) => (position.get(a.id) ?? Infinity) - (position.get(b.id) ?? Infinity) || compareResponses(figures(a), figures(b)),
  );
  return {
    offer,
    generator: generator?.business_name ?? generator?.username ?? '',
    transitions: transitions.map((t) => ({ from: t.from_state, to: t.to_state, actor: t.actor, at: iso(t.at)!, techLat: t.tech_lat, techLng: t.tech_lng })),
    ranking: ordered.map((r, i) => ({
      position: i + 1,
      central: r.central,
      technician: r.technician,
      timeMin: r.time_min,
      timeGiven: r.time_given,
      rate: r.rate,
      distanceKm: r.distance_km,
      respondedAt: iso(r.updated_at)!,
      winner: offer.acceptedResponse === r.id,
    })),
    recipients: recipients.map((r) => ({ kind: r.kind, central: r.central, technician: r.technician, channel: r.channel, distanceKm: r.distance_km, notifiedAt: iso(r.notified_at), push: r.push })),
    deliveries,
  };
}
