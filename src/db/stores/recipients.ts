/**
 * The `offer_recipient` table (D8): one row per offer and covering central,
 * with the technicians of that central who get the offer, nearest first.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { OfferRecipient } from '../entities/index.js';
import { prepared, readDate, sql } from '../sql.js';

/** The recipients recorded for offer $1, in one pass over its rows: centrals, technicians, and whether any of them is still untold. */
export const RECIPIENT_COUNTS = `select count(*) as centrals, coalesce(sum(cardinality(r.technician_ids)), 0) as technicians,
            coalesce(bool_or(cardinality(r.technician_ids) > 0 and r.technicians_notified_at is null), false) as unclaimed
       from offer_recipient r where r.offer_uuid = $1`;

const STORED_COUNTS = prepared(RECIPIENT_COUNTS);

/** How many centrals and technicians an offer's recipients hold (counts as PostgreSQL returns them). */
export async function recipientCounts(em: EntityManager, offerUuid: string): Promise<{ centrals: string; technicians: string }> {
  const [stored] = await sql<{ centrals: string; technicians: string }>(em, STORED_COUNTS, [offerUuid]);
  return stored;
}

/** One offer_recipient row (a covering central and its technicians) as the multi-row INSERT reads it (jsonb_to_recordset). */
export interface RecipientRow {
  offer_uuid: string;
  central_id: number;
  channel: 'http' | 'none';
  delivery_id: string | null;
  /** nearest first */
  technician_ids: number[];
  technician_km: number[];
}

/** The offers' recipients and their mark. */
const RECORD_RECIPIENTS = prepared(`with marked as (update offer set distributed_at = now() where uuid = any($1::uuid[]))
     insert into offer_recipient (offer_uuid, central_id, channel, delivery_id, technician_ids, technician_km, created_at)
     select r.offer_uuid, r.central_id, r.channel, r.delivery_id, r.technician_ids, r.technician_km, now()
       from jsonb_to_recordset($2::jsonb)
         as r(offer_uuid uuid, central_id int, channel text, delivery_id uuid, technician_ids int[], technician_km float8[])
     on conflict do nothing`);

/**
 * Every recipient row and the offers' mark (`distributed_at`) in one
 * statement (a row already there, from data older than the mark, is kept:
 * one odd offer never fails a batch), through the driver (src/db/sql.ts): the
 * recipients' JSON goes as a parameter, not escaped into the text.
 */
export async function recordRecipients(em: EntityManager, offerUuids: readonly string[], rows: readonly RecipientRow[]): Promise<void> {
  await sql(
    em,
    RECORD_RECIPIENTS,
    [offerUuids, JSON.stringify(rows)],
  );
}

/** The offers' technicians not yet notified, claimed: a row per central that has any. */
const CLAIM_TECHNICIANS = prepared(`update offer_recipient set technicians_notified_at = now()
      where offer_uuid = any($1::uuid[]) and cardinality(technician_ids) > 0 and technicians_notified_at is null
      returning offer_uuid, technician_ids, technician_km`);

/** Claims the technicians not yet notified of every offer given (one UPDATE): a row per central that has any. */
export async function claimUnnotifiedTechnicians(
  em: EntityManager,
  offerUuids: readonly string[],
): Promise<Array<{ offer_uuid: string; technician_ids: number[]; technician_km: number[] }>> {
  return sql<{ offer_uuid: string; technician_ids: number[]; technician_km: number[] }>(
    em,
    CLAIM_TECHNICIANS,
    [offerUuids],
  );
}

/** A recipient on an offer's timeline: a central (and its push's state) or one of its technicians (and its distance). */
export interface RecipientTimelineRow {
  kind: string;
  central: string;
  technician: string | null;
  channel: string;
  distance_km: number | null;
  notified_at: Date | null;
  push: string | null;
}

/** An offer's recipients for its timeline: the centrals, then the technicians nearest first. */
export async function recipientTimeline(em: EntityManager, offerUuid: string): Promise<RecipientTimelineRow[]> {
  return em.execute<RecipientTimelineRow[]>(
    `select * from (
       select 'central' as kind, c.name as central, null as technician, r.channel, null::float8 as distance_km,
              null::timestamptz as notified_at, d.state as push, r.id, 0::bigint as n
         from offer_recipient r join central c on c.id = r.central_id left join webhook_delivery d on d.id = r.delivery_id
        where r.offer_uuid = ?
       union all
       select 'technician', c.name, t.names, 'realtime', u.km, r.technicians_notified_at, null, r.id, u.n
         from offer_recipient r join central c on c.id = r.central_id
        cross join lateral unnest(r.technician_ids, r.technician_km) with ordinality as u(id, km, n)
         join technician t on t.id = u.id
        where r.offer_uuid = ?
     ) x order by x.kind, x.distance_km nulls first, x.id, x.n`,
    [offerUuid, offerUuid],
  );
}

/** An offer's recipient rows as entities, with their central and push, in the order they were recorded (operators). */
export async function loadOfferRecipients(em: EntityManager, offerUuid: string): Promise<OfferRecipient[]> {
  return em.find(OfferRecipient, { offer: offerUuid }, { populate: ['central', 'delivery'], orderBy: { id: 'asc' } });
}

/** An offer still open that was published to a technician, as `offer.new` reads it, with the technician's distance. */
export interface OpenOfferForTechnicianRow {
  uuid: string;
  serviceTypeId: number;
  originLat: number;
  originLng: number;
  priority: boolean;
  deadlineAt: Date | null;
  descripcionServicio: string;
  direccionOrigen: string | null;
  ciudad: string | null;
  departamento: string | null;
  direccionDestino: string | null;
  destLat: number | null;
  destLng: number | null;
  observaciones: string | null;
  puntoReferenciaOrigen: string | null;
  puntoReferenciaDestino: string | null;
  fechaCita: string | null;
  horaCita: string | null;
  distanceKm: number;
}

const OPEN_OFFERS_OF_TECHNICIAN = prepared(`
  select o.uuid, o.service_type_id as "serviceTypeId", o.origin_lat as "originLat", o.origin_lng as "originLng", o.priority,
         o.deadline_at as "deadlineAt", o.descripcion_servicio as "descripcionServicio", o.direccion_origen as "direccionOrigen",
         o.ciudad, o.departamento, o.direccion_destino as "direccionDestino", o.dest_lat as "destLat", o.dest_lng as "destLng",
         o.observaciones, o.punto_referencia_origen as "puntoReferenciaOrigen", o.punto_referencia_destino as "puntoReferenciaDestino",
         o.fecha_cita as "fechaCita", o.hora_cita as "horaCita", u.km as "distanceKm"
    from offer o
    join offer_recipient r on r.offer_uuid = o.uuid
    cross join lateral unnest(r.technician_ids, r.technician_km) as u(id, km)
   where o.state = 'ABIERTA'
     and r.technicians_notified_at is not null
     and $1::int = any(r.technician_ids)
     and u.id = $1::int
     and not exists (select 1 from offer_response x where x.offer_uuid = o.uuid and x.central_id = r.central_id)
   order by o.created_at, o.uuid`);

/**
 * The offers still ABIERTA whose `offer.new` was published to this technician
 * and that its central has not answered (one response per central and offer,
 * D4): a technician's open work (D20).
 */
export async function openOffersOfTechnician(em: EntityManager, technicianId: number): Promise<OpenOfferForTechnicianRow[]> {
  const rows = await sql<OpenOfferForTechnicianRow>(em, OPEN_OFFERS_OF_TECHNICIAN, [technicianId]);
  return rows.map((r) => ({ ...r, deadlineAt: readDate(em, r.deadlineAt), distanceKm: Number(r.distanceKm) }));
}

/** D20: whether offer `offerUuid` was distributed to central `centralId` (PUT /aceptacion's transactional path). */
export async function isRecipient(em: EntityManager, offerUuid: string, centralId: number): Promise<boolean> {
  return (await em.count(OfferRecipient, { offer: offerUuid, central: centralId })) > 0;
}
