import Router from '@koa/router';
import type { Runtime } from '../../main/runtime.js';
import { listRecipients } from '../../domain/distribution/recipients.js';
import { operatorAuth } from '../auth/index.js';
import { ADMIN_LOGIN_PATH } from './adminLogin.js';
import type { AppState } from '../context.js';
import { controllerError } from '../errors.js';

/** GET /admin/offers/:uuid/recipients (operators): who received the offer, when, and how each push went. */
export function recipientRoutes(rt: Runtime): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/admin/offers/:uuid/recipients', operatorAuth(() => rt.orm.em, rt.config.jwtSecret, ADMIN_LOGIN_PATH), async (ctx) => {
    const view = await listRecipients(rt.orm.em, ctx.params.uuid);
    if (!view) throw controllerError(404, 'OFERTA NO ENCONTRADA');
    ctx.body = { status: true, msg: 'DESTINATARIOS DE LA OFERTA', data: view };
  });
  return router;
}
