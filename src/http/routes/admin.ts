import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Next } from 'koa';
import type Koa from 'koa';
import type { Runtime } from '../../main/runtime.js';
import { operatorAuth } from '../auth/index.js';
import type { AppContext, AppState } from '../context.js';
import { ADMIN_LOGIN_PATH, adminLoginRoutes } from './adminLogin.js';

export const BOARD_PATH = '/admin/queues';

/** The operator pages (D15): the login form, and Bull Board at /admin/queues for logged-in operators only. */
export function mountAdmin(app: Koa<AppState>, rt: Runtime): void {
  app.use(adminLoginRoutes(rt, BOARD_PATH).routes());

  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(BOARD_PATH);
  createBullBoard({
    queues: rt.queues.all().map((q) => new BullMQAdapter(q)),
    serverAdapter,
  });
  const guard = operatorAuth(() => rt.orm.em, rt.config.jwtSecret, ADMIN_LOGIN_PATH);
  app.use(async (ctx: AppContext, next: Next) => {
    if (ctx.path === BOARD_PATH || ctx.path.startsWith(`${BOARD_PATH}/`)) return guard(ctx, next);
    return next();
  });
  app.use(serverAdapter.registerPlugin() as unknown as Koa.Middleware<AppState>);
}
