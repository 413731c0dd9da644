import type { EntityManager } from '@mikro-orm/postgresql';
import { Offer, type RecipientChannel } from '../../db/entities/index.js';
import { loadOfferRecipients } from '../../db/stores/recipients.js';
import { loadTechnicians } from '../../db/stores/technicians.js';
import { UUID_RE } from '../offers/create/input.js';

/** One recipient of an offer as operators see it: a central, or one of its technicians. */
export interface RecipientView {
  kind: 'central' | 'technician';
  channel: RecipientChannel | 'realtime';
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
  const rows = await loadOfferRecipients(em, uuid);
  // the technicians of every central's row in one read; one deleted since is left out (its row went with it before)
  const ids = rows.flatMap((r) => r.technicianIds);
  const technicians = new Map((ids.length ? await loadTechnicians(em, ids) : []).map((t) => [t.id, t]));
  const centrals: RecipientView[] = rows.map((r) => ({
    kind: 'central',
    channel: r.channel,
    central: { nit: r.central.nit, name: r.central.name },
    technician: null,
    distanceKm: null,
    selectedAt: r.createdAt.toISOString(),
    sentAt: r.delivery?.sentAt?.toISOString() ?? null,
    push: r.delivery
      ? {
          state: r.delivery.state,
          url: r.delivery.url,
          statusCode: r.delivery.statusCode ?? null,
          latencyMs: r.delivery.latencyMs ?? null,
          error: r.delivery.error ?? null,
        }
      : null,
  }));
  const nearby: RecipientView[] = rows
    .flatMap((r) =>
      r.technicianIds.flatMap((id, i) => {
        const t = technicians.get(id);
        if (!t) return [];
        return [
          {
            kind: 'technician' as const,
            channel: 'realtime' as const,
            central: { nit: r.central.nit, name: r.central.name },
            technician: { dni: t.dni, names: t.names },
            distanceKm: r.technicianKm[i] ?? null,
            selectedAt: r.createdAt.toISOString(),
            sentAt: r.techniciansNotifiedAt?.toISOString() ?? null,
            push: null,
          },
        ];
      }),
    )
    .sort((a, b) => (a.distanceKm ?? 0) - (b.distanceKm ?? 0));
  return { uuid, estado: offer.state, recipients: [...centrals, ...nearby] };
}
