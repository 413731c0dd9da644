import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Next } from 'koa';
import type Koa from 'koa';
import type { Runtime } from '../../main/runtime.js';
import { operatorAuth } from '../auth/index.js';
import type { AppContext, AppState } from '../context.js';
import { adminQueues } from '../openapi/operations.js';
import { ADMIN_LOGIN_PATH } from '../openapi/router.js';

/** Bull Board's page (operationId adminQueues in the document; mounted by its own Koa adapter). */
export const BOARD_PATH = adminQueues.path;

/** Bull Board at /admin/queues, for logged-in operators only (D15); the login form is a route (adminLogin.ts). */
export function mountBoard(app: Koa<AppState>, rt: Runtime): void {
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
