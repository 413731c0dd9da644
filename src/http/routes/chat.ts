/**
 * The chat of a service (D14): POST/GET /chat/{expediente}/messages, PUT
 * /chat/{expediente}/read, GET /chat/{expediente}/unread and /stats. The
 * caller and its service come from chatAuth (src/http/auth/chat.ts), after
 * the D13 integrity check.
 */
import type { ErrorObject } from 'ajv';
import { assertChatOpen, chatStats, listMessages, markRead, sendMessage, unreadCounts } from '../../domain/chat/chat.js';
import { TRACKING_MESSAGES as M } from '../../domain/tracking/messages.js';
import type { Runtime } from '../../domain/ports.js';
import { chatCallerOf } from '../auth/chat.js';
import { chatStatistics, chatUnread, listChatMessages, markChatRead, sendChatMessage } from '../openapi/customer.js';
import { route, type Route } from '../openapi/router.js';

const fieldOf = (e: ErrorObject): string => (e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : e.instancePath.slice(1));

const messages = {
  texto: "EL CAMPO 'texto' DEBE TENER ENTRE 1 Y 2000 CARACTERES Y NO ESTAR EN BLANCO",
  clientId: "EL CAMPO 'clientId' DEBE SER UN TEXTO DE HASTA 64 CARACTERES",
  before: "EL PARÁMETRO 'before' DEBE SER EL ID DE UN MENSAJE",
  limit: "EL PARÁMETRO 'limit' DEBE SER UN ENTERO DE 1 A 100",
  hasta: "EL CAMPO 'hasta' DEBE SER EL ID DE UN MENSAJE",
} as Record<string, string>;

const invalid = { message: (e: ErrorObject) => messages[fieldOf(e)] ?? 'EL CUERPO DE LA SOLICITUD DEBE SER UN OBJETO JSON' };

export function chatRoutes(rt: Runtime): Route[] {
  return [
    route(
      sendChatMessage,
      async (ctx, input) => {
        const { offer, viewer } = chatCallerOf(ctx);
        return { status: true, msg: M.chatSent, data: { message: await sendMessage(rt, offer, viewer, input) } };
      },
      { invalid },
    ),
    route(
      listChatMessages,
      async (ctx, input) => {
        const { offer, viewer } = chatCallerOf(ctx);
        if (viewer.kind === 'cliente' || viewer.kind === 'tecnico') {
          // the customer and the technician read while they may write, and 24 h after the end
          await assertChatOpen(rt.orm.em.fork(), offer);
        }
        const page = { before: input.before === undefined ? undefined : Number(input.before), limit: input.limit === undefined ? 20 : Number(input.limit) };
        return { status: true, msg: M.chatHistory, data: await listMessages(rt.orm.em.fork(), offer, page) };
      },
      { invalid },
    ),
    route(
      markChatRead,
      async (ctx, input) => {
        const { offer, viewer } = chatCallerOf(ctx);
        return { status: true, msg: M.chatRead, data: await markRead(rt, offer, viewer, input.hasta ?? undefined) };
      },
      { invalid },
    ),
    route(chatUnread, async (ctx) => ({ status: true, msg: M.chatUnread, data: await unreadCounts(rt.orm.em.fork(), chatCallerOf(ctx).offer) })),
    route(chatStatistics, async (ctx) => ({ status: true, msg: M.chatStats, data: await chatStats(rt.orm.em.fork(), chatCallerOf(ctx).offer) })),
  ];
}
