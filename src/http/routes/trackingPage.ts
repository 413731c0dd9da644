/**
 * The customer page (D14): GET /seguimiento and its forms. The page calls the
 * domain directly (the same rules as the signed /tracking and /chat routes),
 * so no secret ever reaches the browser; once the SMS code is right, the
 * tracking token lives in an httpOnly, SameSite=Strict cookie that scripts
 * cannot read and that also authenticates the page's socket (`/v3`).
 * Every POST must be same-origin (src/http/middleware/pages.ts).
 */
import type Koa from 'koa';
import type { Next } from 'koa';
import { assertChatOpen, listMessages, markRead, sendMessage, unreadCounts, type ChatMessage } from '../../domain/chat/chat.js';
import { DomainError } from '../../domain/errors.js';
import { requestTrackingCode, verifyTrackingCode } from '../../domain/tracking/codes.js';
import { followUp, type FollowUp } from '../../domain/tracking/followUp.js';
import { submitSurvey } from '../../domain/tracking/survey.js';
import { resolveShareToken, resolveTrackingToken, signOutTracking } from '../../domain/tracking/tokens.js';
import type { Offer } from '../../db/entities/index.js';
import { trackingAttempt } from '../../api/customer/attempts.js';
import type { Runtime } from '../../domain/ports.js';
import { TRACKING_COOKIE } from '../../auth/technician.js';
import type { AppContext, AppState } from '../context.js';
import { errorAnswer } from '../../api/errorTable.js';
import { pageHeaders, sameOrigin } from '../middleware/pages.js';
import {
  trackingPage,
  trackingPageCode,
  trackingPageLogout,
  trackingPageMessage,
  trackingPagePart,
  trackingPageScript,
  trackingPageSurvey,
  trackingPageVerify,
  trackingSharedPage,
} from '../../api/customer/page.js';
import { sharedPage, sharedPageGone } from '../views/sharedPage.js';
import { Answer } from '../../api/operation.js';
import { validatorOf } from '../../api/validation.js';
import { route, routerOf, type Route } from '../mount.js';
import { PAGE_PATH, codePage, followPage, livePart, startPage } from '../views/trackingPage.js';
import { TRACKING_SCRIPT } from '../views/trackingScript.js';
import { findUnstorableText } from '../../text.js';

export const PAGE_MESSAGES = {
  crossSite: 'El formulario debe enviarse desde esta misma página.',
  fields: 'Revise los datos: el expediente (hasta 64 caracteres) y un teléfono de 7 a 15 dígitos.',
  code: 'Escriba el código de 6 dígitos que recibió por SMS.',
  message: 'Escriba un mensaje de 1 a 2.000 caracteres.',
  rating: 'Elija una calificación de 1 a 5.',
  sent: 'Si los datos corresponden a un servicio, recibirá un código por SMS en unos minutos.',
  expired: 'Su sesión de seguimiento terminó. Pida un código nuevo.',
} as const;

const html = (ctx: AppContext, status: number, body: string, headers: Record<string, string> = {}) => {
  ctx.type = 'html';
  return new Answer(status, body, { 'Cache-Control': 'no-store', ...headers });
};
const seeOther = (ctx: AppContext, to: string) => {
  ctx.status = 303;
  ctx.redirect(to);
  return undefined;
};

/** The domain error's message (the same table as the API), shown on the page. */
function refusal(err: unknown): { status: number; msg: string } {
  const a = errorAnswer(err, 'controller');
  if (!a || !(err instanceof DomainError)) throw err;
  return { status: a.status, msg: String(a.body.msg) };
}

export function trackingPageRoutes(rt: Runtime): Route[] {
  // code requests and checks per client IP, shared with the API's tracking routes (one Redis counter)
  const attempt = (ip: string) => trackingAttempt(rt, ip);
  const session = async (ctx: AppContext): Promise<Offer | null> => {
    const token = ctx.cookies.get(TRACKING_COOKIE);
    return token ? ((await resolveTrackingToken(rt.orm.em.fork(), token))?.offer ?? null) : null;
  };
  /**
   * The follow-up and the chat as the customer sees them; reading them marks the technician's messages read.
   * Read-only unless there is something to mark (D24): the page refetches on every live notice.
   */
  const view = async (offer: Offer): Promise<{ service: FollowUp; messages: ChatMessage[]; chatOpen: boolean }> => {
    const em = rt.orm.em.fork();
    const service = await followUp(em, offer, { public: false, averageSpeedKmh: rt.config.averageSpeedKmh });
    let chatOpen = true;
    try {
      await assertChatOpen(em, offer);
    } catch {
      chatOpen = false;
    }
    if (chatOpen && (await unreadCounts(em, offer)).cliente > 0) await markRead(rt, offer, { kind: 'cliente' });
    const { messages } = offer.codigoServicio ? await listMessages(em, offer, { limit: 50 }) : { messages: [] };
    return { service, messages, chatOpen };
  };
  const form = <T>(op: Parameters<typeof validatorOf>[0], ctx: AppContext): T | null => {
    const validate = validatorOf(op);
    const body = ctx.request.body ?? {};
    // D19 first: a NUL or a lone surrogate anywhere in the form is the form's 400, never a statement PostgreSQL refuses.
    if (findUnstorableText(body) !== null) return null;
    return validate(body) ? (body as T) : null;
  };
  const crossSite = (ctx: AppContext) => html(ctx, 403, startPage({}, PAGE_MESSAGES.crossSite));

  return [
    route(trackingPage, async (ctx) => {
      const offer = await session(ctx);
      if (offer) return html(ctx, 200, followPage(await view(offer)));
      // the SMS link (D16): the page asks only for the code; `otro` (Pedir otro código, cambiar) opens the first form, kept
      const q = typeof ctx.query.expediente === 'string' ? ctx.query.expediente.trim().slice(0, 64) : '';
      if (q && findUnstorableText(q) === null) return html(ctx, 200, ctx.query.otro ? startPage({ expediente: q }) : codePage(q));
      return html(ctx, 200, startPage());
    }),
    route(
      trackingPageCode,
      async (ctx) => {
        if (!sameOrigin(ctx)) return crossSite(ctx);
        const input = form<{ expediente: string; telefono: string }>(trackingPageCode, ctx);
        if (!input) return html(ctx, 400, startPage({}, PAGE_MESSAGES.fields));
        try {
          await attempt(ctx.ip);
          await requestTrackingCode(rt, input);
        } catch (err) {
          const r = refusal(err);
          return html(ctx, r.status, startPage(input, r.msg));
        }
        return html(ctx, 200, codePage(input.expediente, undefined, PAGE_MESSAGES.sent, input.telefono));
      },
      { validate: false },
    ),
    route(
      trackingPageVerify,
      async (ctx) => {
        if (!sameOrigin(ctx)) return crossSite(ctx);
        const input = form<{ expediente: string; code: string }>(trackingPageVerify, ctx);
        if (!input) return html(ctx, 400, codePage(String((ctx.request.body as { expediente?: unknown })?.expediente ?? '').slice(0, 64), PAGE_MESSAGES.code));
        try {
          await attempt(ctx.ip);
          const s = await verifyTrackingCode(rt, input);
          ctx.cookies.set(TRACKING_COOKIE, s.token, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, expires: s.expiresAt, overwrite: true, path: '/' });
        } catch (err) {
          const r = refusal(err);
          return html(ctx, r.status, codePage(input.expediente, r.msg));
        }
        return seeOther(ctx, PAGE_PATH);
      },
      { validate: false },
    ),
    route(trackingPagePart, async (ctx) => {
      const offer = await session(ctx);
      if (!offer) return html(ctx, 401, '');
      const v = await view(offer);
      return html(ctx, 200, livePart(v.service, v.messages));
    }),
    route(
      trackingPageMessage,
      async (ctx) => {
        if (!sameOrigin(ctx)) return crossSite(ctx);
        const offer = await session(ctx);
        if (!offer) return html(ctx, 401, startPage({}, PAGE_MESSAGES.expired));
        const input = form<{ texto: string }>(trackingPageMessage, ctx);
        let error: { status: number; msg: string } | null = input ? null : { status: 400, msg: PAGE_MESSAGES.message };
        if (input) {
          try {
            await sendMessage(rt, offer, { kind: 'cliente' }, { texto: input.texto });
          } catch (err) {
            error = refusal(err);
          }
        }
        if (error) return html(ctx, error.status, followPage({ ...(await view(offer)), error: error.msg }));
        return seeOther(ctx, `${PAGE_PATH}#chat`);
      },
      { validate: false },
    ),
    route(
      trackingPageSurvey,
      async (ctx) => {
        if (!sameOrigin(ctx)) return crossSite(ctx);
        const token = ctx.cookies.get(TRACKING_COOKIE);
        const offer = await session(ctx);
        if (!offer || !token) return html(ctx, 401, startPage({}, PAGE_MESSAGES.expired));
        const input = form<{ rating: string; comment?: string }>(trackingPageSurvey, ctx);
        if (!input) return html(ctx, 400, followPage({ ...(await view(offer)), error: PAGE_MESSAGES.rating }));
        try {
          await submitSurvey(rt, { token, rating: Number(input.rating), comment: input.comment ?? null });
        } catch (err) {
          const r = refusal(err);
          return html(ctx, r.status, followPage({ ...(await view(offer)), error: r.msg }));
        }
        return seeOther(ctx, `${PAGE_PATH}#encuesta`);
      },
      { validate: false },
    ),
    route(trackingPageLogout, async (ctx) => {
      if (!sameOrigin(ctx)) return crossSite(ctx);
      // D24: the token itself is revoked (and its sockets closed), not only forgotten by this browser
      const token = ctx.cookies.get(TRACKING_COOKIE);
      if (token) await signOutTracking(rt, token);
      ctx.cookies.set(TRACKING_COOKIE, null, { path: '/' });
      return seeOther(ctx, PAGE_PATH);
    }),
    // D24: a share link's page; the token is a read-only capability, so it may travel in the link, kept out of Referer
    route(trackingSharedPage, async (ctx) => {
      const shareHeaders = { 'Referrer-Policy': 'no-referrer', 'X-Robots-Tag': 'noindex' };
      const em = rt.orm.em.fork();
      let service: FollowUp;
      try {
        const { offer } = await resolveShareToken(em, String(ctx.params.token ?? ''));
        service = await followUp(em, offer, { public: true, averageSpeedKmh: rt.config.averageSpeedKmh });
      } catch (err) {
        if (err instanceof DomainError) return html(ctx, 404, sharedPageGone(), shareHeaders);
        throw err;
      }
      return html(ctx, 200, sharedPage(service), shareHeaders);
    }),
    route(trackingPageScript, (ctx) => {
      ctx.type = 'application/javascript';
      return new Answer(200, TRACKING_SCRIPT, { 'Cache-Control': 'no-cache' });
    }),
  ];
}

/** Mounts the page with helmet's headers (D15's page policy: nothing loaded from outside). */
export function mountTrackingPage(app: Koa<AppState>, rt: Runtime): void {
  const headers = pageHeaders as unknown as Koa.Middleware<AppState>;
  app.use((ctx: AppContext, next: Next) => (ctx.path === PAGE_PATH || ctx.path.startsWith(`${PAGE_PATH}/`) ? headers(ctx, next) : next()));
  app.use(routerOf(rt, trackingPageRoutes(rt)).routes());
}
