/**
 * The distribution of an offer (decisions D8), run by the
 * 'offer-distribution/distribute' job. Once per offer, inside a transaction on
 * the locked offer, the recipients are selected and recorded (offer_recipient,
 * unique per offer and central or technician) with a pending push per central
 * that has an api_endpoint.oferta. After commit, pending rows are claimed and
 * delivered: `offer.new` to each technician, an HTTP push to each central.
 * A re-run selects nothing new and finds nothing left to claim.
 *
 * Set-based (issue 12.2): the statements are the same in number for 5 or 50
 * technicians: what is recorded already (with the outcome's counts), one
 * candidates query, one lookup of the covering centrals, one multi-row INSERT
 * of the pushes and one of the recipients, one UPDATE that claims the
 * technicians, one bus message for their `offer.new`, then per covering
 * central with an endpoint its push (claim in one statement, one record each).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Central, type Offer } from '../../db/entities/index.js';
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
  const locked = await em.transactional(async (tem) => {
    const offer = await lockOffer(tem, offerUuid);
    if (!offer || offer.state !== 'ABIERTA') return null;
    // what an earlier run recorded (nothing: record now); the outcome's counts either way
    const [stored] = await tem.getConnection().execute<Array<{ centrals: string; technicians: string }>>(
      `select count(*) filter (where kind = 'central') as centrals, count(*) filter (where kind = 'technician') as technicians
         from offer_recipient where offer_uuid = ?`,
      [offerUuid],
      'all',
      tem.getTransactionContext(),
    );
    const counts = { centrals: Number(stored.centrals), technicians: Number(stored.technicians) };
    return { offer, counts: counts.centrals + counts.technicians > 0 ? counts : await recordRecipients(tem, rt.config, offer) };
  });
  if (!locked) {
    rt.log.info({ offerUuid }, 'distribution skipped: offer gone or no longer open');
    return null;
  }
  const { offer, counts } = locked;
  const published = await publishToTechnicians(rt, em, offer);
  const pushes = await pushToCentrals(em, offerUuid, rt.config);
  const outcome = {
    centrals: counts.centrals,
    technicians: counts.technicians,
    published,
    pushed: pushes.filter((ok) => ok).length,
    pushFailed: pushes.filter((ok) => !ok).length,
  };
  rt.log.info({ offerUuid, ...outcome }, 'offer distributed');
  return outcome;
}

/** One offer_recipient row as the multi-row INSERT reads it (jsonb_to_recordset). */
interface RecipientRow {
  kind: 'central' | 'technician';
  central_id: number;
  technician_id: number | null;
  channel: 'http' | 'none' | 'realtime';
  distance_km: number | null;
  delivery_id: string | null;
}

/** Records the recipients; returns how many centrals and technicians. */
async function recordRecipients(em: EntityManager, cfg: DistributionConfig, offer: Offer): Promise<{ centrals: number; technicians: number }> {
  const { centrals: centralIds, technicians } = await findCandidates(em, {
    lat: offer.originLat,
    lng: offer.originLng,
    serviceTypeId: offer.serviceType.id,
    radiusKm: offer.priority ? cfg.prioritySearchRadiusKm : cfg.searchRadiusKm,
    maxAgeS: cfg.positionMaxAgeS,
    cap: cfg.distributionCap,
  });
  const centrals = centralIds.length ? await em.find(Central, { id: { $in: centralIds } }, { populate: ['apiUser'] }) : [];
  const rows: RecipientRow[] = [];
  let pushes = 0;
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
    if (delivery) pushes++;
    rows.push({ kind: 'central', central_id: central.id, technician_id: null, channel: url ? 'http' : 'none', distance_km: null, delivery_id: delivery?.id ?? null });
  }
  for (const t of technicians) {
    rows.push({ kind: 'technician', central_id: t.centralId, technician_id: t.technicianId, channel: 'realtime', distance_km: km(t.distanceM), delivery_id: null });
  }
  // the pushes (one multi-row INSERT by the unit of work), then every recipient in one statement
  if (pushes) await em.flush();
  const counts = { centrals: centrals.length, technicians: technicians.length };
  if (!rows.length) return counts;
  await em.getConnection().execute(
    `insert into offer_recipient (offer_uuid, kind, central_id, technician_id, channel, distance_km, delivery_id, created_at)
     select ?::uuid, r.kind, r.central_id, r.technician_id, r.channel, r.distance_km, r.delivery_id, now()
       from jsonb_to_recordset(?::jsonb)
         as r(kind text, central_id int, technician_id int, channel text, distance_km float8, delivery_id uuid)`,
    [offer.uuid, JSON.stringify(rows)],
    'run',
    em.getTransactionContext(),
  );
  return counts;
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

/**
 * Claims the technicians not yet notified (one UPDATE) and publishes
 * `offer.new` to each, nearest first (D10), as one bus message; returns
 * how many. When the publish fails, none is counted (the rows stay claimed,
 * as one failed publish did before: real-time delivery is fire-and-forget).
 */
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
  if (!claimed.length) return 0;
  const fields = offerFields(offer);
  try {
    // one bus message for all of them, nearest first, each with its own distance (perTechnician)
    await rt.events.publishMany([
      {
        audience: { kind: 'technicians', technicianIds: claimed.map((r) => r.technician_id) },
        event: 'offer.new',
        data: fields,
        each: Object.fromEntries(claimed.map((r) => [String(r.technician_id), { distance: Number(r.distance_km) }])),
      },
    ]);
    return claimed.length;
  } catch (err) {
    rt.log.warn({ err, offerUuid: offer.uuid, technicians: claimed.length }, 'offer.new not published');
    return 0;
  }
}
