/**
 * The operator console (issue 11, D15, D18): GET /admin/console (find an
 * offer, receivers' health), GET /admin/console/ofertas/{ref} (its timeline),
 * POST /admin/console/entregas/{id}/reenviar (an admin resends one delivery).
 * Operators' login and roles; the /admin pages' headers and same-origin rule
 * come from mountAdmin (routes/admin.ts).
 */
import { offerTimeline } from '../../domain/console/timeline.js';
import { receiverHealth } from '../../domain/deliveries/log.js';
import { resendDelivery, resendTarget } from '../../domain/deliveries/resend.js';
import { liveMap } from '../../domain/console/liveMap.js';
import { workQueue } from '../../domain/console/workQueue.js';
import { DomainError } from '../../domain/errors.js';
import type { Runtime } from '../../domain/ports.js';
import type { AppContext } from '../context.js';
import { sameOrigin } from '../middleware/pages.js';
import { errorAnswer } from '../../api/errorTable.js';
import { consoleHome, consoleOffer, consoleQueue, consoleResend, consoleScript } from '../../api/deliveries/console.js';
import { Answer } from '../../api/operation.js';
import { route, type Route } from '../mount.js';
import { CONSOLE_PATH, consoleHomePage, consoleMessagePage, consoleOfferPage, consoleResendConfirmPage, workQueuePart } from '../views/consolePage.js';
import { CONSOLE_SCRIPT } from '../views/consoleScript.js';

const html = (ctx: AppContext, status: number, body: string) => {
  ctx.type = 'html';
  return new Answer(status, body, { 'Cache-Control': 'no-store' });
};

const who = (ctx: AppContext) => ctx.state.operator ?? { username: '', role: 'operator' };

export function consoleRoutes(rt: Runtime): Route[] {
  return [
    route(consoleHome, async (ctx) => {
      const q = typeof ctx.query.q === 'string' ? ctx.query.q.trim().slice(0, 64) : '';
      const em = rt.orm.em.fork();
      if (q) {
        const t = await offerTimeline(em, q);
        if (t) {
          ctx.status = 303;
          ctx.redirect(`${CONSOLE_PATH}/ofertas/${t.offer.uuid}`);
          return undefined;
        }
      }
      const error = q ? `No hay ninguna oferta con el identificador o código «${q}».` : undefined;
      const [health, queue, map] = await Promise.all([receiverHealth(em, 60), workQueue(rt.orm.em.fork()), liveMap(rt.orm.em.fork())]);
      return html(ctx, 200, consoleHomePage(who(ctx), health, queue, map, error, q));
    }),
    route(consoleQueue, async () => new Answer(200, workQueuePart(await workQueue(rt.orm.em.fork())), { 'Cache-Control': 'no-store', 'Content-Type': 'text/html; charset=utf-8' })),
    route(consoleScript, (ctx) => {
      ctx.type = 'application/javascript; charset=utf-8';
      return new Answer(200, CONSOLE_SCRIPT, { 'Cache-Control': 'no-cache' });
    }),
    route(consoleOffer, async (ctx) => {
      const t = await offerTimeline(rt.orm.em.fork(), String(ctx.params.ref ?? ''));
      if (!t) return html(ctx, 404, consoleMessagePage(who(ctx), 'No existe esa oferta.'));
      const sent = ctx.query.reenvio;
      const notice = sent === 'ok' ? { ok: true, text: 'Entrega reenviada: el receptor respondió 2xx.' } : sent === 'fallo' ? { ok: false, text: 'Entrega reenviada: el receptor no respondió 2xx (ver el último intento).' } : undefined;
      return html(ctx, 200, consoleOfferPage(who(ctx), t, notice));
    }),
    route(consoleResend, async (ctx, form: { confirmado?: 'si'; entiendo?: 'si' }) => {
      if (!sameOrigin(ctx)) return html(ctx, 403, consoleMessagePage(who(ctx), 'El formulario debe enviarse desde esta misma consola.'));
      const id = String(ctx.params.id ?? '');
      try {
        // D23: nothing is resent until the operator confirmed (the console's dialog, or this page without the script)
        if (form.confirmado !== 'si') return html(ctx, 200, consoleResendConfirmPage(who(ctx), await resendTarget(rt.orm.em.fork(), { deliveryId: id, operator: who(ctx) })));
        const out = await resendDelivery(rt, { deliveryId: id, operator: who(ctx), understood: form.entiendo === 'si' });
        ctx.status = 303;
        ctx.redirect(out.offerUuid ? `${CONSOLE_PATH}/ofertas/${out.offerUuid}?reenvio=${out.ok ? 'ok' : 'fallo'}` : CONSOLE_PATH);
        return undefined;
      } catch (err) {
        const a = err instanceof DomainError ? errorAnswer(err, 'controller') : null;
        if (!a) throw err;
        if (err instanceof DomainError && err.code === 'delivery.consent-needed') {
          return html(ctx, a.status, consoleResendConfirmPage(who(ctx), await resendTarget(rt.orm.em.fork(), { deliveryId: id, operator: who(ctx) }), String(a.body.msg)));
        }
        return html(ctx, a.status, consoleMessagePage(who(ctx), String(a.body.msg)));
      }
    }),
  ];
}
