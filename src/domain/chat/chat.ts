/**
 * The chat of a service (D14): the customer and the assigned technician write;
 * the generator and operators read. Open from ASIGNADA until 24 hours after
 * the service ends. `texto` 1–2,000 characters; a repeated `clientId` of the
 * same author returns the first message (an idempotent retry); at most 30
 * messages per minute per author and expediente (a Redis counter, so the
 * limit holds across API processes). Each message and read mark reaches the
 * other side's sockets live (`chat.message`, `chat.read`). The
 * `chat_message` table is written and read only here, through its store
 * (src/db/stores/chat.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Offer } from '../../db/entities/index.js';
import {
  chatFigures,
  insertMessage,
  markMessagesRead,
  messageByClientId,
  messageExists,
  messagesBefore,
  unreadBySide,
  unreadOf,
  type ChatMessageRow,
} from '../../db/stores/chat.js';
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

type Row = ChatMessageRow;

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
    const first = await messageByClientId(em, offer.uuid, autor, clientId);
    if (first) return view(first);
  }
  const key = `${rt.config.queuePrefix}:chat:rate:${offer.uuid}:${autor}`;
  const [[, count], [, ttl]] = (await rt.redis.multi().incr(key).expire(key, 60, 'NX').ttl(key).exec()) as [[null, number], [null, number], [null, number]];
  if (count > MESSAGES_PER_MINUTE) throw new DomainError('chat.too-many-messages', { retryAfterS: Math.max(1, ttl) });
  const row = await insertMessage(em, {
    offerUuid: offer.uuid,
    autor,
    technicianId: viewer.kind === 'tecnico' ? viewer.technicianId : null,
    texto: input.texto,
    clientId,
  });
  // A retry that raced its first try: the first one's message.
  const message = row
    ? view(row)
    : view((await messageByClientId(em, offer.uuid, autor, clientId))!);
  if (row) await publish(rt, offer, other(autor), 'chat.message', { message });
  return message;
}

export async function listMessages(em: EntityManager, offer: Offer, page: { before?: number; limit: number }): Promise<{ messages: ChatMessage[]; hasMore: boolean }> {
  const rows = await messagesBefore(em, offer.uuid, page.before ?? null, page.limit + 1);
  const hasMore = rows.length > page.limit;
  return { messages: rows.slice(0, page.limit).reverse().map(view), hasMore };
}

/** Marks the other side's messages read up to `hasta` (default: all); returns what the caller still has unread. */
export async function markRead(rt: Deps, offer: Offer, viewer: ChatViewer, hasta?: number): Promise<{ unread: number }> {
  const reader = authorOf(viewer);
  const em = rt.orm.em.fork();
  if (hasta !== undefined) {
    if (!(await messageExists(em, offer.uuid, hasta))) throw new DomainError('chat.message-unknown', { id: String(hasta) });
  }
  const marked = await markMessagesRead(em, offer.uuid, other(reader), hasta ?? null);
  if (marked.length) {
    const last = Math.max(...marked.map((m) => Number(m.id)));
    await publish(rt, offer, other(reader), 'chat.read', { lector: reader, hasta: last, leidoEn: new Date(marked[0].leido_en).toISOString() });
  }
  return { unread: await unreadOf(em, offer.uuid, other(reader)) };
}

/** `cliente`: what the customer has not read (the technician's messages); `tecnico`: the reverse. */
export async function unreadCounts(em: EntityManager, offer: Offer): Promise<{ cliente: number; tecnico: number }> {
  const r = await unreadBySide(em, offer.uuid);
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
  const r = await chatFigures(em, offer.uuid);
  return {
    mensajes: Number(r.n),
    deCliente: Number(r.c),
    deTecnico: Number(r.t),
    primeraRespuestaSegundos: r.first_response === null ? null : Math.round(r.first_response),
    ultimoMensajeEn: r.last ? new Date(r.last).toISOString() : null,
  };
}
