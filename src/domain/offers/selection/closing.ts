/**
 * A batch of due windows closed without the ORM's unit of work (issue 12,
 * item 3). The evaluation closes up to CLOSE_BATCH windows in one
 * transaction; through entities, hydrating their responses, centrals and
 * technicians and computing the flush's change sets cost more than half of
 * the time-critical worker's CPU per window. Here the batch is read as plain
 * rows (the offers locked in one statement, then every response with what the
 * notices need in a second) and written set-based: one statement updates the
 * offers and inserts their audit rows, one inserts their deliveries, whatever
 * the batch's size; all four through the driver (src/db/sql.ts).
 *
 * It makes exactly the two moves the evaluation makes (ABIERTA → ACEPTADA and
 * ABIERTA → SIN_RESPUESTA, by `evaluacion`) with what `transition` and
 * `selectResponse` would write: the same table of moves (canMove), the same
 * audit detail, the same pure builders for the ranking, the 6.1 body and the
 * state notices (D12), and the same announcements after commit.
 * test/offers/closingForms.test.ts keeps the rows of both forms equal.
 * Neither move holds or releases a technician (D16: only ASIGNADA and the end
 * of an active service do), and neither assigns service codes.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../../../config/index.js';
import { prepared, readDate, sql, type Prepared } from '../../../db/sql.js';
import { auditActor } from '../../../limits.js';
import { selectionNovelties, stateNotices, type NoticeReceiver } from '../../notifications/plan.js';
import { claimedAtWrite, deliveryRow, insertDeliveries, type ClaimedDelivery } from '../../../webhooks/deliveries.js';
import { responseView } from '../acceptance/responses.js';
import { announceOnCommit, requireCommitSteps, type OfferRef } from '../lifecycle/announce.js';
import { canMove, refusedMove, type TransitionResult } from '../lifecycle/stateMachine.js';
import { acceptanceNotice } from './acceptanceNotification.js';
import { rankResponses, rankingEntries } from './ranking.js';
import type { Selection } from './selection.js';
import type { OfferState } from '../lifecycle/states.js';

/** A due window, locked, as the batch reads it. */
export interface DueWindow {
  uuid: string;
  state: OfferState;
  deadlineAt: Date | null;
  expiresAt: Date | null;
  motivo: string | null;
  codigoServicio: string | null;
  generator: NoticeReceiver;
  /** the generator's x-apikey and signing secret (D17), for a 6.1 claimed as it is written */
  generatorKeys: { apiKey: string | null; secret: string | null };
}

/** A response with what the ranking, the 6.1 body, the live event and the novelties need. */
interface ResponseRow {
  id: number;
  offerUuid: string;
  distanceKm: number;
  timeMin: number;
  timeGiven: boolean;
  rate: number;
  techLat: number | null;
  techLng: number | null;
  updatedAt: Date;
  central: { id: number; nit: string; name: string; phone: string | null; apiUser: NoticeReceiver | null };
  technician: { id: number; dni: string; identifier: string | null; phone: string | null; names: string };
}

export type ClosedWindow =
  | {
      kind: 'selected';
      uuid: string;
      selection: Selection;
      /** the 6.1, when it was written claimed (closeWindows' `claimNow`): to be sent right after the commit */
      claimed: ClaimedDelivery | null;
      deadlineAt: Date | null;
      expiresAt: Date | null;
    }
  | { kind: 'no-response'; uuid: string; ref: OfferRef; deadlineAt: Date | null; expiresAt: Date | null };

/** An offer as a batch of windows (or of expiries, expiry.ts) reads it, with its generator for the notices and the 6.1. */
export const WINDOW_COLUMNS = `o.uuid, o.state, o.deadline_at as "deadlineAt", o.expires_at as "expiresAt", o.motivo,
  o.codigo_servicio as "codigoServicio",
  json_build_object('id', g.id, 'urlApi', g.url_api, 'apiEndpoint', g.api_endpoint) as generator,
  json_build_object('apiKey', g.api_key, 'secret', g.webhook_secret) as "generatorKeys"`;

/**
 * A locking read of a batch (of due windows here, of expired offers in expiry.ts): the job's own offer locked first,
 * waited for, then up to $3 others that match `others` and that nobody holds (SKIP LOCKED), in `order`; $2 is now.
 */
export function lockingBatch(others: string, order: string): Prepared {
  return prepared(`with own as (
       select ${WINDOW_COLUMNS}, true as own from offer o join api_user g on g.id = o.generator_id where o.uuid = $1 for update of o
     ), others as (
       select ${WINDOW_COLUMNS}, false as own from offer o join api_user g on g.id = o.generator_id
        where ${others} and o.uuid <> $1
        order by ${order} limit $3 for update of o skip locked
     )
     select * from own union all select * from others`);
}

/** Runs a `lockingBatch` statement: the rows in its order (the own first, `own` true), their times read as dates. */
export async function lockBatch(em: EntityManager, statement: Prepared, ownUuid: string, limit: number, now: Date): Promise<Array<DueWindow & { own: boolean }>> {
  // One statement: the own row is locked first (the outer query reads `own` before `others`), then the others.
  const rows = await sql<DueWindow & { own: boolean }>(em, statement, [ownUuid, now.toISOString(), limit]);
  for (const w of rows) {
    w.deadlineAt = readDate(em, w.deadlineAt);
    w.expiresAt = readDate(em, w.expiresAt);
  }
  return rows;
}

/** The own window, then others due. */
const LOCK_DUE = lockingBatch(`o.state = 'ABIERTA' and o.deadline_at <= $2`, 'o.deadline_at');

/**
 * Locks the job's own offer (waiting for it: a response being written holds
 * it) and up to `limit` other ABIERTA offers past their deadline that no one
 * else holds (SKIP LOCKED, so no two batches wait on each other). Returns the
 * ABIERTA ones, the own first.
 */
export async function lockDueWindows(em: EntityManager, ownUuid: string, limit: number, now: Date): Promise<DueWindow[]> {
  const rows = await lockBatch(em, LOCK_DUE, ownUuid, limit, now);
  return rows.filter((w) => !w.own || w.state === 'ABIERTA').map(({ own: _own, ...w }) => w);
}

/** The windows' responses with their centrals and technicians. */
const RESPONSES = prepared(`select r.id, r.offer_uuid as "offerUuid", r.distance_km as "distanceKm", r.time_min as "timeMin", r.time_given as "timeGiven",
            r.rate, r.tech_lat as "techLat", r.tech_lng as "techLng", r.updated_at as "updatedAt",
            json_build_object('id', c.id, 'nit', c.nit, 'name', c.name, 'phone', c.phone,
              'apiUser', case when u.id is null then null
                              else json_build_object('id', u.id, 'urlApi', u.url_api, 'apiEndpoint', u.api_endpoint) end) as central,
            json_build_object('id', t.id, 'dni', t.dni, 'identifier', t.identifier, 'phone', t.phone, 'names', t.names) as technician
       from offer_response r
       join central c on c.id = r.central_id
       left join api_user u on u.id = c.api_user_id
       join technician t on t.id = r.technician_id
      where r.offer_uuid = any($1::uuid[])`);

/** The windows' moves and their audit rows. */
const CLOSE = prepared(`with moved as (
       update offer o
          set state = v.state, assigned_central_id = v.central, assigned_technician_id = v.technician,
              accepted_response = v.response, ranking = v.ranking, updated_at = $1
         from jsonb_to_recordset($2::jsonb) as v(uuid uuid, state text, central int, technician int, response int, ranking jsonb)
        where o.uuid = any($3::uuid[]) and o.uuid = v.uuid
     )
     insert into offer_transition (offer_uuid, from_state, to_state, actor, at, tech_lat, tech_lng, detail)
     select t.offer_uuid, t.from_state, t.to_state, t.actor, t.at, t.tech_lat, t.tech_lng, t.detail
       from jsonb_to_recordset($4::jsonb)
         as t(offer_uuid uuid, from_state text, to_state text, actor text, at timestamptz, tech_lat float8, tech_lng float8, detail jsonb)`);

/**
 * Closes locked ABIERTA windows in the caller's root transaction: each one
 * with responses is ACEPTADA by the best (D2), each without SIN_RESPUESTA.
 * The moves' announcements are declared on the transaction; the caller
 * declares what it does with the 6.1 deliveries and the expiries. A 6.1 for
 * which `claimNow` answers true (its caller holds a place to send it after
 * the commit) is written claimed, and returned with what its send needs.
 */
export async function closeWindows(
  em: EntityManager,
  cfg: Config,
  windows: readonly DueWindow[],
  actor: string,
  claimNow: (deliveryId: string) => boolean = () => false,
): Promise<ClosedWindow[]> {
  requireCommitSteps(em);
  const responses = await sql<ResponseRow>(
    em,
    RESPONSES,
    [windows.map((w) => w.uuid)],
  );
  const byOffer = new Map<string, ResponseRow[]>();
  for (const r of responses) {
    r.updatedAt = readDate(em, r.updatedAt);
    const list = byOffer.get(r.offerUuid) ?? [];
    list.push(r);
    byOffer.set(r.offerUuid, list);
  }

  const now = new Date();
  const fecha = now.toISOString();
  const offerRows: Array<Record<string, unknown>> = [];
  /** offer_transition rows, by column */
  const transitions: Array<Record<string, unknown>> = [];
  const deliveries: Parameters<typeof insertDeliveries>[1] = [];
  const closed: ClosedWindow[] = [];
  for (const w of windows) {
    const ref: OfferRef = { uuid: w.uuid, generatorId: w.generator.id };
    const own = byOffer.get(w.uuid) ?? [];
    const to = own.length ? 'ACEPTADA' : 'SIN_RESPUESTA';
    if (!canMove(w.state, to, 'evaluacion')) throw refusedMove(w.state, 'evaluacion', to);
    const ranked = rankResponses(own);
    const chosen = ranked[0] ?? null;
    let deliveryId: string | null = null;
    let claimed: ClaimedDelivery | null = null;
    if (chosen) {
      const notice = acceptanceNotice(cfg, w, w.generator, chosen);
      if (notice) {
        const row = deliveryRow({ offer: w.uuid, kind: 'acceptance', receiver: w.generator.id, ...notice, eventHeader: false });
        deliveryId = row.id;
        if (claimNow(row.id)) {
          const written = claimedAtWrite(row, w.generatorKeys);
          deliveries.push(written.row);
          claimed = written.claimed;
        } else {
          deliveries.push(row);
        }
      }
      offerRows.push({
        uuid: w.uuid,
        state: to,
        central: chosen.central.id,
        technician: chosen.technician.id,
        response: chosen.id,
        ranking: rankingEntries(ranked),
      });
    } else {
      offerRows.push({ uuid: w.uuid, state: to, central: null, technician: null, response: null, ranking: null });
    }
    transitions.push({
      offer_uuid: w.uuid,
      from_state: 'ABIERTA',
      to_state: to,
      actor: auditActor(actor),
      at: fecha,
      tech_lat: chosen?.techLat ?? null,
      tech_lng: chosen?.techLng ?? null,
      detail: chosen ? { responseId: chosen.id, centralId: chosen.central.id, technicianId: chosen.technician.id, deliveryId } : null,
    });
    const novelties = chosen ? selectionNovelties(own, chosen.central.id, 'ACEPTADA') : [];
    const notificationIds = stateNotices(w, w.generator, 'ABIERTA', to, novelties, fecha).map((n) => {
      const row = deliveryRow({ offer: w.uuid, kind: n.kind, receiver: n.receiver.id, url: n.url, body: { ...n.body }, eventHeader: true });
      deliveries.push(row);
      return row.id;
    });
    const result: TransitionResult = { from: 'ABIERTA', to, notificationIds };
    announceOnCommit(em, ref, result);
    closed.push(
      chosen
        ? {
            kind: 'selected',
            uuid: w.uuid,
            selection: { offer: ref, result, deliveryId, accepted: responseView(chosen) },
            claimed,
            deadlineAt: w.deadlineAt,
            expiresAt: w.expiresAt,
          }
        : { kind: 'no-response', uuid: w.uuid, ref, deadlineAt: w.deadlineAt, expiresAt: w.expiresAt },
    );
  }

  // Only what the moves change (an ABIERTA offer has no assignment and no ranking yet), and the audit rows, in one
  // statement. The keys are also given as an array: the planner cannot count a jsonb record set's rows (it assumes
  // 100) and, without them, joined it to the whole offer table by a sequential scan (seen with auto_explain under
  // the bench), a cost that grows with the table.
  await sql(
    em,
    CLOSE,
    [now.toISOString(), JSON.stringify(offerRows), windows.map((w) => w.uuid), JSON.stringify(transitions)],
  );
  await insertDeliveries(em, deliveries);
  return closed;
}
