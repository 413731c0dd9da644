/**
 * The `chat_message` table (D14): a service's chat, one row per message.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export type ChatAuthorColumn = 'cliente' | 'tecnico';

/** A message as stored. */
export interface ChatMessageRow {
  id: string;
  autor: ChatAuthorColumn;
  texto: string;
  client_id: string | null;
  enviado_en: Date;
  leido_en: Date | null;
}

/** The author's message sent with `clientId` (its first try), if any. */
export async function messageByClientId(em: EntityManager, offerUuid: string, autor: ChatAuthorColumn, clientId: string | null): Promise<ChatMessageRow | undefined> {
  const [row] = await em.execute<ChatMessageRow[]>(`select * from chat_message where offer_uuid = ? and autor = ? and client_id = ?`, [offerUuid, autor, clientId]);
  return row;
}

/** Inserts a message; nothing (undefined) when the author already sent one with that `clientId`. */
export async function insertMessage(
  em: EntityManager,
  m: { offerUuid: string; autor: ChatAuthorColumn; technicianId: number | null; texto: string; clientId: string | null },
): Promise<ChatMessageRow | undefined> {
  const [row] = await em.execute<ChatMessageRow[]>(
    `insert into chat_message (offer_uuid, autor, technician_id, texto, client_id) values (?, ?, ?, ?, ?)
     on conflict (offer_uuid, autor, client_id) where client_id is not null do nothing
     returning *`,
    [m.offerUuid, m.autor, m.technicianId, m.texto, m.clientId],
  );
  return row;
}

/** At most `limit` messages before message `before` (or the newest), newest first. */
export async function messagesBefore(em: EntityManager, offerUuid: string, before: number | null, limit: number): Promise<ChatMessageRow[]> {
  return em.execute<ChatMessageRow[]>(
    `select * from chat_message where offer_uuid = ? and (?::bigint is null or id < ?::bigint) order by id desc limit ?`,
    [offerUuid, before, before, limit],
  );
}

/** Whether message `id` belongs to the service's chat. */
export async function messageExists(em: EntityManager, offerUuid: string, id: number): Promise<boolean> {
  const [known] = await em.execute(`select 1 from chat_message where offer_uuid = ? and id = ?`, [offerUuid, id]);
  return Boolean(known);
}

/** Marks `autor`'s unread messages read, up to message `upTo` (null: all); returns those marked. */
export async function markMessagesRead(em: EntityManager, offerUuid: string, autor: ChatAuthorColumn, upTo: number | null): Promise<Array<{ id: string; leido_en: Date }>> {
  return em.execute<Array<{ id: string; leido_en: Date }>>(
    `update chat_message set leido_en = now()
      where offer_uuid = ? and autor = ? and leido_en is null and (?::bigint is null or id <= ?::bigint)
      returning id, leido_en`,
    [offerUuid, autor, upTo, upTo],
  );
}

/** How many of `autor`'s messages are unread. */
export async function unreadOf(em: EntityManager, offerUuid: string, autor: ChatAuthorColumn): Promise<number> {
  const [{ n }] = await em.execute<Array<{ n: string }>>(
    `select count(*) as n from chat_message where offer_uuid = ? and autor = ? and leido_en is null`,
    [offerUuid, autor],
  );
  return Number(n);
}

/** Unread messages of each side: `cliente` counts the technician's, `tecnico` the customer's. */
export async function unreadBySide(em: EntityManager, offerUuid: string): Promise<{ cliente: string; tecnico: string }> {
  const [r] = await em.execute<Array<{ cliente: string; tecnico: string }>>(
    `select count(*) filter (where autor = 'tecnico' and leido_en is null) as cliente,
            count(*) filter (where autor = 'cliente' and leido_en is null) as tecnico
       from chat_message where offer_uuid = ?`,
    [offerUuid],
  );
  return r;
}

/** The chat's figures: messages in all and per side, the last one's time, and seconds to the first answer. */
export async function chatFigures(
  em: EntityManager,
  offerUuid: string,
): Promise<{ n: string; c: string; t: string; last: Date | null; first_response: number | null }> {
  const [r] = await em.execute<Array<{ n: string; c: string; t: string; last: Date | null; first_response: number | null }>>(
    `with m as (select * from chat_message where offer_uuid = ?),
          f as (select * from m order by id limit 1)
     select (select count(*) from m) as n,
            (select count(*) from m where autor = 'cliente') as c,
            (select count(*) from m where autor = 'tecnico') as t,
            (select max(enviado_en) from m) as last,
            (select extract(epoch from (min(m.enviado_en) - f.enviado_en))::float8
               from m, f where m.autor <> f.autor and m.id > f.id group by f.enviado_en) as first_response`,
    [offerUuid],
  );
  return r;
}

/** Deletes at most `batch` messages sent more than `days` ago, set-based; how many went (retention). */
export async function pruneChatBatch(em: EntityManager, days: number, batch: number): Promise<number> {
  const res = await em.execute<Array<{ id: string }>>(
    `delete from chat_message where id in (select id from chat_message where enviado_en < now() - make_interval(days => ?) limit ?) returning id`,
    [days, batch],
  );
  return res.length;
}
