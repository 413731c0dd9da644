import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer, OfferRecipient, type RecipientChannel, type RecipientKind } from '../../db/entities/index.js';
import { UUID_RE } from '../offers/create/input.js';

/** One recipient of an offer as operators see it. */
export interface RecipientView {
  kind: RecipientKind;
  channel: RecipientChannel;
  central: { nit: string; name: string };
  technician: { dni: string; names: string } | null;
  distanceKm: number | null;
  selectedAt: string;
  /** technicians: when offer.new was published; centrals: when the push was sent */
  sentAt: string | null;
  push: { state: string; url: string; statusCode: number | null; latencyMs: number | null; error: string | null } | null;
}


/** Who received the offer and when, centrals first; null when there is no such offer. */
export async function listRecipients(em: EntityManager, uuid: string): Promise<{ uuid: string; estado: string; recipients: RecipientView[] } | null> {
  if (!UUID_RE.test(uuid)) return null;
  const offer = await em.findOne(Offer, { uuid });
  if (!offer) return null;
  const rows = await em.find(
    OfferRecipient,
    { offer: uuid },
    { populate: ['central', 'technician', 'delivery'], orderBy: { kind: 'asc', distanceKm: 'asc', id: 'asc' } },
  );
  return {
    uuid,
    estado: offer.state,
    recipients: rows.map((r) => ({
      kind: r.kind,
      channel: r.channel,
      central: { nit: r.central.nit, name: r.central.name },
      technician: r.technician ? { dni: r.technician.dni, names: r.technician.names } : null,
      distanceKm: r.distanceKm ?? null,
      selectedAt: r.createdAt.toISOString(),
      sentAt: (r.notifiedAt ?? r.delivery?.sentAt)?.toISOString() ?? null,
      push: r.delivery
        ? {
            state: r.delivery.state,
            url: r.delivery.url,
            statusCode: r.delivery.statusCode ?? null,
            latencyMs: r.delivery.latencyMs ?? null,
            error: r.delivery.error ?? null,
          }
        : null,
    })),
  };
}
