/**
 * The jobs of an open offer (STYLE 5, 6): distribution now, evaluation at the
 * deadline, expiry OFFER_MAX_OPEN_MS after creation (their ids, attempts and
 * backoff are the registry's, src/queues/registry.ts). Job ids derive from the
 * uuid, so scheduling an offer again (a retried POST /oferta) is harmless and
 * repairs an offer whose first enqueue failed after its commit.
 */
import type { Offer } from '../../../db/entities/index.js';
import type { Runtime } from '../../../main/runtime.js';

export async function scheduleOfferJobs(
  rt: Runtime,
  offer: Pick<Offer, 'uuid' | 'createdAt' | 'deadlineAt' | 'expiresAt'>,
  now: Date = offer.createdAt,
): Promise<void> {
  const after = (at: Date | null | undefined) => Math.max(0, (at ?? now).getTime() - now.getTime());
  const data = { offerUuid: offer.uuid };
  await Promise.all([
    rt.queues.add('offer-distribution', 'distribute', data),
    rt.queues.add('offer-evaluation', 'evaluate', data, { delay: after(offer.deadlineAt) }),
    rt.queues.add('offer-evaluation', 'expire', data, { delay: after(offer.expiresAt) }),
  ]);
}
