/**
 * The operator pages (D15): the login form, and Bull Board at /admin/queues
 * for logged-in operators only. Roles: an `operator` sees a read-only board
 * (every queue in Bull Board's readOnlyMode, and any state-changing request
 * refused 403 before it reaches the board); an `admin` gets the full board.
 * Every page sends helmet's security headers; state-changing requests must be
 * same-origin (middleware/pages.ts).
 */
import { CONSOLE_PATH } from '../views/consolePage.js';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Queue } from 'bullmq';
import type { Next } from 'koa';
import type Koa from 'koa';
import type { Runtime } from '../../domain/ports.js';
import { operatorAuth } from '../auth/index.js';
import type { AppContext, AppState } from '../context.js';
import { pageHeaders, sameOriginOnly } from '../middleware/pages.js';
import { adminQueues } from '../../api/operators/pages.js';
import { ADMIN_LOGIN_PATH, routerOf, type Route } from '../mount.js';

/** Bull Board's page (operationId adminQueues in the document; mounted by its own Koa adapter). */
export const BOARD_PATH = adminQueues.path;
const ADMIN_PREFIX = '/admin/';

export const ADMIN_MESSAGES = {
  readOnly: 'Su rol de operador solo permite ver las colas; las acciones son de un administrador.',
  crossSite: 'Solicitud rechazada: no proviene de esta aplicación.',
} as const;

/**
 * Queues whose failed jobs Bull Board offers no retry for: re-running a delivery's job does nothing (it finds the
 * delivery finished: the 6.1 is sent at most once, D5; a notification's retries are over, D12); an admin resends
 * from the delivery log instead (the console's "Reenviar").
 */
export const NO_RETRY_QUEUES: ReadonlySet<string> = new Set(['webhook-dispatch', 'state-notification']);

/** One Bull Board over every queue, read-only or not, served at BOARD_PATH. */
function board(rt: Runtime, readOnlyMode: boolean): Koa.Middleware<AppState> {
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(BOARD_PATH);
  const adapter = (q: Queue) => new BullMQAdapter(q, { readOnlyMode, allowRetries: !NO_RETRY_QUEUES.has(q.name) });
  createBullBoard({ queues: rt.queues.all().map(adapter), serverAdapter });
  return serverAdapter.registerPlugin() as unknown as Koa.Middleware<AppState>;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** The operator pages: headers and the same-origin rule for all, the login form's routes, then the boards by role. */
export function mountAdmin(app: Koa<AppState>, rt: Runtime, loginRoutes: Route[]): void {
  const isAdminPage = (ctx: AppContext) => ctx.path === '/admin' || ctx.path.startsWith(ADMIN_PREFIX);
  const headers = pageHeaders as unknown as Koa.Middleware<AppState>;
  const crossSite = sameOriginOnly((ctx) => {
    ctx.status = 403;
    ctx.body = { status: false, msg: ADMIN_MESSAGES.crossSite };
  });
  app.use(async (ctx: AppContext, next: Next) => {
    if (!isAdminPage(ctx)) return next();
    // The login form and the console answer a cross-site POST with their own HTML page (same rule, sameOrigin).
    return headers(ctx, () => (ctx.path === ADMIN_LOGIN_PATH || ctx.path.startsWith(`${CONSOLE_PATH}/`) ? next() : crossSite(ctx, next)));
  });

  app.use(routerOf(rt, loginRoutes).routes());

  const full = board(rt, false);
  const readOnly = board(rt, true);
  const guard = operatorAuth(() => rt.orm.em.fork(), rt.config.jwtSecret, ADMIN_LOGIN_PATH);
  app.use(async (ctx: AppContext, next: Next) => {
    if (ctx.path !== BOARD_PATH && !ctx.path.startsWith(`${BOARD_PATH}/`)) return next();
    return guard(ctx, async () => {
      if (ctx.state.operator?.role === 'admin') return full(ctx, next);
      if (!SAFE_METHODS.has(ctx.method)) {
        ctx.status = 403;
        ctx.body = { status: false, msg: ADMIN_MESSAGES.readOnly };
        return;
      }
      return readOnly(ctx, next);
    });
  });
}
