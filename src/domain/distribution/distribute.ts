/**
 * The distribution of an offer (decisions D8), run by the
 * 'offer-distribution/distribute' job. Once per offer, inside a transaction on
 * the locked offer, the recipients are selected and recorded (offer_recipient,
 * unique per offer and central or technician) with a pending push per central
 * that has an api_endpoint.oferta. After commit, pending rows are claimed and
 * delivered: `offer.new` to each technician, an HTTP push to each central.
 * A re-run selects nothing new and finds nothing left to claim.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Central, OfferRecipient, type Offer } from '../../db/entities/index.js';
import type { Runtime } from '../../main/runtime.js';
import { attemptDelivery, claimDeliveries, createDelivery, profileEndpoint, type SendConfig } from '../../webhooks/deliveries.js';
import { lockOffer } from '../offers/lifecycle/stateMachine.js';
import { findCandidates } from './candidates.js';
import { km, offerFields, offerPushBody } from './payload.js';

export interface DistributionOutcome {
  /** covering centrals recorded, technicians recorded (this run or an earlier one) */
  centrals: number;
  technicians: number;
  /** deliveries made by this run */
  published: number;
  pushed: number;
  pushFailed: number;
}

type DistributionConfig = Runtime['config'];

/** Distributes an ABIERTA offer; null when the offer is gone or no longer open. */
export async function distributeOffer(rt: Runtime, offerUuid: string): Promise<DistributionOutcome | null> {
  const em = rt.orm.em.fork();
  const offer = await em.transactional(async (tem) => {
    const locked = await lockOffer(tem, offerUuid);
    if (!locked || locked.state !== 'ABIERTA') return null;
    if ((await tem.count(OfferRecipient, { offer: offerUuid })) === 0) await recordRecipients(tem, rt.config, locked);
    return locked;
  });
  if (!offer) {
    rt.log.info({ offerUuid }, 'distribution skipped: offer gone or no longer open');
    return null;
  }
  const published = await publishToTechnicians(rt, em, offer);
  const pushes = await pushToCentrals(em, offerUuid, rt.config);
  const [centrals, technicians] = await Promise.all([
    em.count(OfferRecipient, { offer: offerUuid, kind: 'central' }),
    em.count(OfferRecipient, { offer: offerUuid, kind: 'technician' }),
  ]);
  const outcome = {
    centrals,
    technicians,
    published,
    pushed: pushes.filter((ok) => ok).length,
    pushFailed: pushes.filter((ok) => !ok).length,
  };
  rt.log.info({ offerUuid, ...outcome }, 'offer distributed');
  return outcome;
}

async function recordRecipients(em: EntityManager, cfg: DistributionConfig, offer: Offer): Promise<void> {
  const { centrals: centralIds, technicians } = await findCandidates(em, {
    lat: offer.originLat,
    lng: offer.originLng,
    serviceTypeId: offer.serviceType.id,
    radiusKm: offer.priority ? cfg.prioritySearchRadiusKm : cfg.searchRadiusKm,
    maxAgeS: cfg.positionMaxAgeS,
    cap: cfg.distributionCap,
  });
  const centrals = centralIds.length ? await em.find(Central, { id: { $in: centralIds } }, { populate: ['apiUser'] }) : [];
  const now = new Date();
  for (const central of centrals) {
    const receiver = central.apiUser;
    const url = receiver ? profileEndpoint(receiver, 'oferta') : null;
    const nearby = technicians
      .filter((t) => t.centralId === central.id)
      .map((t) => ({ dniTecnico: t.dni, distance: km(t.distanceM) }));
    const delivery =
      receiver && url
        ? createDelivery(em, { offer, kind: 'offer-push', receiver, url, body: { ...offerPushBody(offer, nearby) }, eventHeader: true })
        : null;
    em.create(OfferRecipient, { offer, kind: 'central', central, channel: url ? 'http' : 'none', delivery, createdAt: now });
  }
  for (const t of technicians) {
    em.create(OfferRecipient, {
      offer,
      kind: 'technician',
      central: t.centralId,
      technician: t.technicianId,
      channel: 'realtime',
      distanceKm: km(t.distanceM),
      createdAt: now,
    });
  }
  await em.flush();
}

/**
 * Claims the offer's pending pushes and sends them concurrently, one attempt
 * each (informative: the window is short and technicians get the offer in
 * real time); any 2xx is ok. One failing never stops the others. Returns
 * whether each was delivered.
 */
async function pushToCentrals(em: EntityManager, offerUuid: string, cfg: SendConfig): Promise<boolean[]> {
  const claimed = await claimDeliveries(em, `d.offer_uuid = ? and d.kind = 'offer-push' and d.state = 'pending'`, [offerUuid]);
  const sent = await Promise.all(claimed.map((d) => attemptDelivery(em, d, cfg, (o) => (o.ok ? 'ok' : 'failed'))));
  return sent.map((a) => a.verdict === 'ok');
}

/** Claims the technicians not yet notified and publishes `offer.new` to each, nearest first (D10); returns how many. */
async function publishToTechnicians(rt: Runtime, em: EntityManager, offer: Offer): Promise<number> {
  const claimed = await em
    .getConnection()
    .execute<Array<{ technician_id: number; distance_km: number }>>(
      `with claimed as (
         update offer_recipient set notified_at = now()
          where offer_uuid = ? and kind = 'technician' and notified_at is null
          returning technician_id, distance_km
       )
       select technician_id, distance_km from claimed order by distance_km`,
      [offer.uuid],
    );
  const fields = offerFields(offer);
  let published = 0;
  for (const r of claimed) {
    try {
      await rt.events.publish({ kind: 'technician', technicianId: r.technician_id }, 'offer.new', {
        ...fields,
        distance: Number(r.distance_km),
      });
      published++;
    } catch (err) {
      rt.log.warn({ err, offerUuid: offer.uuid, technicianId: r.technician_id }, 'offer.new not published');
    }
  }
  return published;
}
