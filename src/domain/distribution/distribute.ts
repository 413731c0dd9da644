/**
 * The distribution of an offer (decisions D8), run by the
 * 'offer-distribution/distribute' job. Once per offer, inside a transaction on
 * the locked offer, the recipients are selected and recorded (offer_recipient:
 * one row per offer and covering central, with its technicians that get the
 * offer) with a pending push per central that has an api_endpoint.oferta, and
 * the offer is marked recorded
 * (`distributed_at`). After commit, pending rows are claimed and delivered:
 * `offer.new` to each technician, an HTTP push to each central. A re-run
 * records nothing new and finds nothing left to claim.
 *
 * Set-based (issue 12.2) and batched (issue 12.4): the statements are the same
 * in number for 5 or 50 technicians, and for one offer or a batch of
 * DISTRIBUTE_BATCH: a job records its own offer and the open offers no one has
 * recorded or holds yet, so when offers pile up (a burst) one job does the
 * work of many and withdraws the jobs behind it (one already running finds its
 * offer done with one read).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusMessage, Runtime } from '../ports.js';
import { claimPendingOfOffers, deliveryRow, insertDeliveries, type DeliveryRow } from '../../db/stores/deliveries.js';
import { distributionSeen, lockDistributionBatch, tooLateToDistribute, type DistributionBatchOffer } from '../../db/stores/offers.js';
import { centralReceivers } from '../../db/stores/parties.js';
import { claimUnnotifiedTechnicians, recipientCounts, recordRecipients as insertRecipients, type RecipientRow } from '../../db/stores/recipients.js';
import { profileEndpoint, recordAttempts, sendDelivery, type SendConfig } from '../../webhooks/dispatch.js';
import { afterCommit } from '../offers/lifecycle/announce.js';
import { operatorStatesMessage } from '../offers/lifecycle/events.js';
import { findCandidatesMany } from './candidates.js';
import { jobId } from '../../queues/registry.js';
import { distributionsTooLate } from '../../metrics/metrics.js';
import { km, offerFields, offerPushBody } from './payload.js';

/** the most offers one distribution records in one transaction: its own and others not yet recorded */
export const DISTRIBUTE_BATCH = 20;

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
type Counts = { centrals: number; technicians: number };

/**
 * Distributes an ABIERTA offer and, in the same transaction, up to
 * DISTRIBUTE_BATCH - 1 other open offers whose recipients nobody has recorded
 * yet and nobody holds (FOR UPDATE SKIP LOCKED, newest first, DIST-1): one
 * candidates statement, one of centrals, one of pushes and one of recipients
 * for all of them, then one claim of their technicians, one bus pipeline and
 * one claim of their pushes; then the other offers' jobs are withdrawn (one
 * already running finds nothing left to do with one read). Returns this
 * offer's outcome; null when the offer is gone or no longer open.
 */
export async function distributeOffer(rt: Runtime, offerUuid: string): Promise<DistributionOutcome | null> {
  const em = rt.orm.em.fork();
  const cutoffMs = distributionCutoffMs(rt.config);
  const seen = await distributionSeen(em, offerUuid, cutoffMs);
  if (!seen || seen.state !== 'ABIERTA') {
    rt.log.info({ offerUuid }, 'distribution skipped: offer gone or no longer open');
    // under a backlog, the jobs behind this one are of offers closed or too late as well
    await withdrawTooLate(rt);
    return null;
  }
  if (seen.recorded && !seen.unclaimed && !seen.pending) {
    // recorded and sent by an earlier run or another offer's batch: nothing left
    return { centrals: Number(seen.centrals), technicians: Number(seen.technicians), published: 0, pushed: 0, pushFailed: 0 };
  }
  // what is left of an earlier run is not sent that late either, but only an offer never recorded counts as one not distributed
  if (seen.late) return tooLate(rt, offerUuid, !seen.recorded);
  // TC-1: there is something to send; not while the closing of windows is behind
  await rt.closingGate?.pass('offer-distribution');
  const locked = await em.transactional(async (tem) => {
    // the own offer locked first (waited for), then up to DISTRIBUTE_BATCH - 1 others nobody holds (SKIP LOCKED)
    const batch = await lockDistributionBatch(tem, offerUuid, DISTRIBUTE_BATCH - 1, cutoffMs);
    const own = batch.find((o) => o.own);
    if (!own || own.state !== 'ABIERTA') return null;
    if (own.late) return 'late' as const;
    const others = batch.filter((o) => !o.own);
    const toRecord = own.distributedAt ? others : [own, ...others];
    const counts = await recordRecipients(tem, rt.config, toRecord);
    if (own.distributedAt) counts.set(own.uuid, await storedCounts(tem, own.uuid));
    return { offers: [own, ...others], counts };
  });
  if (!locked) {
    rt.log.info({ offerUuid }, 'distribution skipped: offer gone or no longer open');
    return null;
  }
  if (locked === 'late') return tooLate(rt, offerUuid, !seen.recorded);
  const { offers, counts } = locked;
  // D23: the operators' console hears of the batch's offers in the same pipeline as the technicians' offer.new
  const opened = operatorStatesMessage(offers.map((o) => ({ uuid: o.uuid, estado: 'ABIERTA', anterior: null })), new Date().toISOString());
  const published = await publishToTechnicians(rt, em, offers, opened);
  const pushes = await pushToCentrals(em, offers.map((o) => o.uuid), rt.config);
  // The other offers' own jobs would only find them done: withdrawn once everything is sent (a job already
  // running ends with its one read; if this process dies before, they run and find what is left).
  const others = offers.filter((o) => o.uuid !== offerUuid).map((o) => ({ offerUuid: o.uuid }));
  if (others.length) {
    await afterCommit(rt, "withdraw distributed offers' jobs", { count: others.length }, () => rt.queues.withdraw('offer-distribution', 'distribute', others));
  }
  let mine: DistributionOutcome | null = null;
  for (const offer of offers) {
    const own = pushes.get(offer.uuid) ?? [];
    const outcome = {
      ...counts.get(offer.uuid)!,
      published: published.get(offer.uuid) ?? 0,
      pushed: own.filter((ok) => ok).length,
      pushFailed: own.filter((ok) => !ok).length,
    };
    rt.log.info({ offerUuid: offer.uuid, ...outcome, ...(offers.length > 1 ? { batch: offers.length, by: offerUuid } : {}) }, 'offer distributed');
    if (offer.uuid === offerUuid) mine = outcome;
  }
  return mine;
}

/**
 * DIST-1 (issue 32): how much of its window an offer must still have to be distributed: DISTRIBUTION_CUTOFF_MS, at
 * most a tenth of the window (a short window, as in tests, keeps most of itself).
 */
export function distributionCutoffMs(cfg: Pick<DistributionConfig, 'distributionCutoffMs' | 'offerResponseWindowMs'>): number {
  return Math.min(cfg.distributionCutoffMs, Math.floor(cfg.offerResponseWindowMs / 10));
}

/**
 * An offer whose window ends within the cutoff is not distributed: no technician could answer it in time, and its
 * distribution would hold the row its closing is about to lock. Under a backlog the newest offers go first (their
 * jobs are LIFO), so the oldest reach this point, and the first of them withdraws the jobs of the rest: a backlog
 * never outlives a window.
 */
async function tooLate(rt: Runtime, offerUuid: string, neverRecorded: boolean): Promise<null> {
  if (neverRecorded) distributionsTooLate.inc();
  rt.log.info({ offerUuid }, 'distribution skipped: too little of its window left (a distribution backlog)');
  await withdrawTooLate(rt);
  return null;
}

/** the most waiting jobs one withdrawal looks at: the oldest (the jobs are LIFO, the oldest wait longest) */
const WITHDRAW_TOO_LATE = 1000;
/** a distribution job's id is this and its offer's uuid (src/queues/registry.ts, jobId) */
const DISTRIBUTE_JOB_PREFIX = jobId('distribute', '');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** the processes' withdrawal running now, if any: one at a time */
const withdrawing = new WeakMap<Runtime, Promise<void>>();

/**
 * One offer closed or too late under a backlog means the offers behind it (older: the jobs are LIFO) are too: the
 * oldest waiting jobs are read from the queue (one range read), their offers checked together (one statement), and
 * the jobs of those gone, closed or too late withdrawn in one pipeline, instead of each being taken, read and dropped
 * in turn while windows close. A job already running is left to end on its own.
 */
function withdrawTooLate(rt: Runtime): Promise<void> {
  const running = withdrawing.get(rt);
  if (running) return running;
  const run = (async () => {
    const waiting = await rt.queues.get('offer-distribution').getRanges(['wait'], 0, WITHDRAW_TOO_LATE - 1);
    const candidates = waiting.filter((id) => id.startsWith(DISTRIBUTE_JOB_PREFIX)).map((id) => id.slice(DISTRIBUTE_JOB_PREFIX.length)).filter((u) => UUID.test(u));
    if (!candidates.length) return;
    const uuids = await tooLateToDistribute(rt.orm.em.fork(), candidates, distributionCutoffMs(rt.config));
    if (!uuids.length) return;
    await rt.queues.withdraw('offer-distribution', 'distribute', uuids.map((offerUuid) => ({ offerUuid })));
    rt.log.info({ offers: uuids.length }, 'distribution jobs withdrawn: their offers closed or with too little of their window left');
  })()
    .catch((err: unknown) => rt.log.warn({ err: String(err) }, 'too-late distribution jobs not withdrawn; each will find its offer late'))
    .finally(() => withdrawing.delete(rt));
  withdrawing.set(rt, run);
  return run;
}

/** An offer of a distribution batch, as its locking statement reads it (plain columns, no entity to flush). */
type BatchOffer = DistributionBatchOffer;

/** The counts of an offer recorded earlier (its own re-run after a crash between commit and sending). */
async function storedCounts(em: EntityManager, offerUuid: string): Promise<Counts> {
  const stored = await recipientCounts(em, offerUuid);
  return { centrals: Number(stored.centrals), technicians: Number(stored.technicians) };
}

/**
 * Records the recipients of locked offers not recorded yet, and marks them
 * recorded (`distributed_at`), in set-based statements whatever their number;
 * returns how many centrals and technicians each got.
 */
async function recordRecipients(em: EntityManager, cfg: DistributionConfig, offers: readonly BatchOffer[]): Promise<Map<string, Counts>> {
  const counts = new Map<string, Counts>();
  if (!offers.length) return counts;
  const found = await findCandidatesMany(
    em,
    offers.map((offer) => ({
      key: offer.uuid,
      lat: offer.originLat,
      lng: offer.originLng,
      serviceTypeId: offer.serviceType.id,
      radiusKm: offer.priority ? cfg.prioritySearchRadiusKm : cfg.searchRadiusKm,
      maxAgeS: cfg.positionMaxAgeS,
      cap: cfg.distributionCap,
    })),
  );
  const centralIds = [...new Set([...found.values()].flatMap((c) => c.centrals))];
  const centrals = new Map(
    (centralIds.length ? await centralReceivers(em, centralIds) : []).map((c) => [c.id, c]),
  );
  const rows: RecipientRow[] = [];
  const pushes: DeliveryRow[] = [];
  for (const offer of offers) {
    const { centrals: ids, technicians } = found.get(offer.uuid)!;
    for (const id of ids) {
      const central = centrals.get(id)!;
      const receiver = central.receiverId === null ? null : { id: central.receiverId, urlApi: central.urlApi, apiEndpoint: central.apiEndpoint };
      const url = receiver ? profileEndpoint(receiver, 'oferta') : null;
      const own = technicians.filter((t) => t.centralId === id);
      const nearby = own.map((t) => ({ dniTecnico: t.dni, distance: km(t.distanceM) }));
      const delivery =
        receiver && url
          ? deliveryRow({ offer: offer.uuid, kind: 'offer-push', receiver: receiver.id, url, body: { ...offerPushBody(offer, nearby) }, eventHeader: true })
          : null;
      if (delivery) pushes.push(delivery);
      rows.push({
        offer_uuid: offer.uuid,
        central_id: id,
        channel: url ? 'http' : 'none',
        delivery_id: delivery?.id ?? null,
        technician_ids: own.map((t) => t.technicianId),
        technician_km: nearby.map((t) => t.distance),
      });
    }
    counts.set(offer.uuid, { centrals: ids.length, technicians: technicians.length });
  }
  // the pushes (one INSERT through the driver), then every recipient (a row per central, its technicians in it) and
  // the offers' mark in one statement (a row already there, from data older than the mark, is kept: one odd offer
  // never fails a batch)
  await insertDeliveries(em, pushes);
  await insertRecipients(em, offers.map((o) => o.uuid), rows);
  return counts;
}

/**
 * Claims the offers' pending pushes (one statement) and sends them
 * concurrently, one attempt each (informative: the window is short and
 * technicians get the offer in real time); any 2xx is ok. One failing never
 * stops the others. Once all are answered, every try is recorded in one
 * statement, whatever the number of pushes (a central each). Returns, per
 * offer, whether each was delivered.
 */
async function pushToCentrals(em: EntityManager, offerUuids: readonly string[], cfg: SendConfig): Promise<Map<string, boolean[]>> {
  const claimed = await claimPendingOfOffers(em, offerUuids, 'offer-push');
  const sent = await Promise.all(claimed.map((d) => sendDelivery(d, cfg, (o) => (o.ok ? 'ok' : 'failed'))));
  await recordAttempts(em, sent);
  const out = new Map<string, boolean[]>();
  claimed.forEach((d, i) => {
    const uuid = String(d.offerUuid);
    out.set(uuid, [...(out.get(uuid) ?? []), sent[i].verdict === 'ok']);
  });
  return out;
}

/**
 * Claims the technicians not yet notified, of every offer (one UPDATE), and
 * publishes `offer.new` to each, nearest first (D10), as one bus message per
 * offer in one pipeline with `also` (the operators' `offer.states`, D23); returns how many per offer. When the publish fails,
 * none is counted (the rows stay claimed, as one failed publish did before:
 * real-time delivery is fire-and-forget).
 */
async function publishToTechnicians(rt: Runtime, em: EntityManager, offers: readonly BatchOffer[], also: BusMessage): Promise<Map<string, number>> {
  const claimed = await claimUnnotifiedTechnicians(em, offers.map((o) => o.uuid));
  const byOffer = new Map<string, Array<{ technician_id: number; distance_km: number }>>();
  for (const r of claimed) {
    const rows = byOffer.get(r.offer_uuid) ?? [];
    r.technician_ids.forEach((id, i) => rows.push({ technician_id: id, distance_km: r.technician_km[i] }));
    byOffer.set(r.offer_uuid, rows);
  }
  // nearest first across the offer's centrals (each row's technicians are already in that order)
  for (const rows of byOffer.values()) rows.sort((a, b) => a.distance_km - b.distance_km);
  const out = new Map<string, number>();
  try {
    // one bus message per offer, nearest first, each technician with its own distance (perTechnician); then `also`
    await rt.events.publishMany([
      ...offers
        .filter((o) => byOffer.has(o.uuid))
        .map((offer) => {
          const rows = byOffer.get(offer.uuid)!;
          return {
            audience: { kind: 'technicians' as const, technicianIds: rows.map((r) => r.technician_id) },
            event: 'offer.new' as const,
            data: offerFields(offer),
            each: Object.fromEntries(rows.map((r) => [String(r.technician_id), { distance: Number(r.distance_km) }])),
          };
        }),
      also,
    ]);
    for (const [uuid, rows] of byOffer) out.set(uuid, rows.length);
  } catch (err) {
    rt.log.warn({ err, offers: byOffer.size, technicians: [...byOffer.values()].reduce((n, rows) => n + rows.length, 0) }, 'offer.new not published');
  }
  return out;
}
