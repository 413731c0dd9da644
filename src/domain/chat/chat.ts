/**
 * The chat of a service (D14): the customer and the assigned technician write;
 * the generator and operators read. Open from ASIGNADA until 24 hours after
 * the service ends. `texto` 1–2,000 characters; a repeated `clientId` of the
 * same author returns the first message (an idempotent retry); at most 30
 * messages per minute per author and expediente (a Redis counter, so the
 * limit holds across API processes). Each message and read mark reaches the
 * other side's sockets live (`chat.message`, `chat.read`). The
 * `chat_message` table is written and read only here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Offer } from '../../db/entities/index.js';
import type { Runtime } from '../ports.js';
import type { Audience } from '../ports.js';
import { DomainError } from '../errors.js';
import { ACTIVE_STATES } from '../offers/lifecycle/states.js';
import { AFTER_END_HOURS, serviceEndedAt } from '../tracking/tokens.js';

export type ChatAuthor = 'cliente' | 'tecnico';

/** Who reads or writes: the two sides write; the generator and operators only read. */
export type ChatViewer = { kind: 'cliente' } | { kind: 'tecnico'; technicianId: number } | { kind: 'generador' } | { kind: 'operador' };

export interface ChatMessage {
  id: number;
  autor: ChatAuthor;
  texto: string;
  clientId: string | null;
  enviadoEn: string;
  leidoEn: string | null;
}

export const MESSAGES_PER_MINUTE = 30;
export const TEXT_MAX = 2000;

type Deps = Pick<Runtime, 'orm' | 'redis' | 'config' | 'events' | 'log'>;

interface Row {
  id: string;
  autor: ChatAuthor;
  texto: string;
  client_id: string | null;
  enviado_en: Date;
  leido_en: Date | null;
}

const view = (r: Row): ChatMessage => ({
  id: Number(r.id),
  autor: r.autor,
  texto: r.texto,
  clientId: r.client_id,
  enviadoEn: new Date(r.enviado_en).toISOString(),
  leidoEn: r.leido_en ? new Date(r.leido_en).toISOString() : null,
});

const other = (a: ChatAuthor): ChatAuthor => (a === 'cliente' ? 'tecnico' : 'cliente');

/** The writing side of a viewer; generators and operators read only. */
export function authorOf(viewer: ChatViewer): ChatAuthor {
  if (viewer.kind === 'cliente' || viewer.kind === 'tecnico') return viewer.kind;
  throw new DomainError('chat.read-only');
}

/** Throws `chat.closed` unless the chat is open: from ASIGNADA until 24 h after the service ended. */
export async function assertChatOpen(em: EntityManager, offer: Offer): Promise<void> {
  if (ACTIVE_STATES.includes(offer.state)) return;
  const ended = offer.codigoServicio ? await serviceEndedAt(em, offer.uuid) : null;
  if (!ended) throw new DomainError('chat.closed', { state: offer.state, reason: 'not-assigned' });
  if (Date.now() > ended.getTime() + AFTER_END_HOURS * 3_600_000) throw new DomainError('chat.closed', { state: offer.state, reason: 'ended' });
}

/** The sockets of the other side: the customer's (tracking token) or the assigned technician's. */
function sideAudience(offer: Offer, side: ChatAuthor): Audience | null {
  if (side === 'cliente') return { kind: 'customer', offerUuid: offer.uuid };
  return offer.assignedTechnician ? { kind: 'technician', technicianId: offer.assignedTechnician.id } : null;
}

async function publish(rt: Deps, offer: Offer, side: ChatAuthor, event: string, data: Record<string, unknown>): Promise<void> {
  const audience = sideAudience(offer, side);
  if (!audience) return;
  await rt.events
    .publish(audience, event, { expediente: offer.codigoServicio ?? offer.uuid, uuid: offer.uuid, ...data })
    .catch((err: unknown) => rt.log.warn({ err, uuid: offer.uuid, event }, 'chat event not published'));
}

export async function sendMessage(rt: Deps, offer: Offer, viewer: ChatViewer, input: { texto: string; clientId?: string | null }): Promise<ChatMessage> {
  const autor = authorOf(viewer);
  const em = rt.orm.em.fork();
  await assertChatOpen(em, offer);
  const clientId = input.clientId?.trim() || null;
  if (clientId) {
    const [first] = await em.execute<Row[]>(`select * from chat_message where offer_uuid = ? and autor = ? and client_id = ?`, [offer.uuid, autor, clientId]);
    if (first) return view(first);
  }
  const key = `${rt.config.queuePrefix}:chat:rate:${offer.uuid}:${autor}`;
  const [[, count], [, ttl]] = (await rt.redis.multi().incr(key).expire(key, 60, 'NX').ttl(key).exec()) as [[null, number], [null, number], [null, number]];
  if (count > MESSAGES_PER_MINUTE) throw new DomainError('chat.too-many-messages', { retryAfterS: Math.max(1, ttl) });
  const [row] = await em.execute<Row[]>(
    `insert into chat_message (offer_uuid, autor, technician_id, texto, client_id) values (?, ?, ?, ?, ?)
     on conflict (offer_uuid, autor, client_id) where client_id is not null do nothing
     returning *`,
    [offer.uuid, autor, viewer.kind === 'tecnico' ? viewer.technicianId : null, input.texto, clientId],
  );
  // A retry that raced its first try: the first one's message.
  const message = row
    ? view(row)
    : view((await em.execute<Row[]>(`select * from chat_message where offer_uuid = ? and autor = ? and client_id = ?`, [offer.uuid, autor, clientId]))[0]);
  if (row) await publish(rt, offer, other(autor), 'chat.message', { message });
  return message;
}

export async function listMessages(em: EntityManager, offer: Offer, page: { before?: number; limit: number }): Promise<{ messages: ChatMessage[]; hasMore: boolean }> {
  const rows = await em.execute<Row[]>(
    `select * from chat_message where offer_uuid = ? and (?::bigint is null or id < ?::bigint) order by id desc limit ?`,
    [offer.uuid, page.before ?? null, page.before ?? null, page.limit + 1],
  );
  const hasMore = rows.length > page.limit;
  return { messages: rows.slice(0, page.limit).reverse().map(view), hasMore };
}

/** Marks the other side's messages read up to `hasta` (default: all); returns what the caller still has unread. */
export async function markRead(rt: Deps, offer: Offer, viewer: ChatViewer, hasta?: number): Promise<{ unread: number }> {
  const reader = authorOf(viewer);
  const em = rt.orm.em.fork();
  if (hasta !== undefined) {
    const [known] = await em.execute(`select 1 from chat_message where offer_uuid = ? and id = ?`, [offer.uuid, hasta]);
    if (!known) throw new DomainError('chat.message-unknown', { id: String(hasta) });
  }
  const marked = await em.execute<Array<{ id: string; leido_en: Date }>>(
    `update chat_message set leido_en = now()
      where offer_uuid = ? and autor = ? and leido_en is null and (?::bigint is null or id <= ?::bigint)
      returning id, leido_en`,
    [offer.uuid, other(reader), hasta ?? null, hasta ?? null],
  );
  if (marked.length) {
    const last = Math.max(...marked.map((m) => Number(m.id)));
    await publish(rt, offer, other(reader), 'chat.read', { lector: reader, hasta: last, leidoEn: new Date(marked[0].leido_en).toISOString() });
  }
  const [{ n }] = await em.execute<Array<{ n: string }>>(
    `select count(*) as n from chat_message where offer_uuid = ? and autor = ? and leido_en is null`,
    [offer.uuid, other(reader)],
  );
  return { unread: Number(n) };
}

/** `cliente`: what the customer has not read (the technician's messages); `tecnico`: the reverse. */
export async function unreadCounts(em: EntityManager, offer: Offer): Promise<{ cliente: number; tecnico: number }> {
  const [r] = await em.execute<Array<{ cliente: string; tecnico: string }>>(
    `select count(*) filter (where autor = 'tecnico' and leido_en is null) as cliente,
            count(*) filter (where autor = 'cliente' and leido_en is null) as tecnico
       from chat_message where offer_uuid = ?`,
    [offer.uuid],
  );
  return { cliente: Number(r.cliente), tecnico: Number(r.tecnico) };
}

export interface ChatStats {
  mensajes: number;
  deCliente: number;
  deTecnico: number;
  /** seconds from the first message to the other side's first answer after it; null until there is one */
  primeraRespuestaSegundos: number | null;
  ultimoMensajeEn: string | null;
}

export async function chatStats(em: EntityManager, offer: Offer): Promise<ChatStats> {
  const [r] = await em.execute<Array<{ n: string; c: string; t: string; last: Date | null; first_response: number | null }>>(
    `with m as (select * from chat_message where offer_uuid = ?),
          f as (select * from m order by id limit 1)
     select (select count(*) from m) as n,
            (select count(*) from m where autor = 'cliente') as c,
            (select count(*) from m where autor = 'tecnico') as t,
            (select max(enviado_en) from m) as last,
            (select extract(epoch from (min(m.enviado_en) - f.enviado_en))::float8
               from m, f where m.autor <> f.autor and m.id > f.id group by f.enviado_en) as first_response`,
    [offer.uuid],
  );
  return {
    mensajes: Number(r.n),
    deCliente: Number(r.c),
    deTecnico: Number(r.t),
    primeraRespuestaSegundos: r.first_response === null ? null : Math.round(r.first_response),
    ultimoMensajeEn: r.last ? new Date(r.last).toISOString() : null,
  };
}
