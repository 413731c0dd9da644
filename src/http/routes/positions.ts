import Router from '@koa/router';
import type { Runtime } from '../../main/runtime.js';
import { POSITION_MESSAGES, positionByCentralSchema, positionMessage, reportPosition } from '../../geo/positions.js';
import { apiKeyAuth } from '../auth/index.js';
import { apiUserOf } from '../caller.js';
import type { AppState } from '../context.js';
import { envelope } from '../middleware/envelope.js';
import { failureMessage } from '../middleware/failure.js';
import { positionBody } from '../presenters/positions.js';
import { validateBody } from '../validation.js';

/** PUT /posicion-tecnico {dniTecnico, latitud, longitud, disponible?} (D8): a central reports one of its technicians; envelope {status, data}. */
export function positionRoutes(rt: Runtime): Router<AppState> {
  const router = new Router<AppState>();
  router.put(
    '/posicion-tecnico',
    apiKeyAuth(() => rt.orm.em, '/posicion-tecnico'),
    envelope('acceptance'),
    failureMessage(rt.log, POSITION_MESSAGES.failure),
    async (ctx) => {
      const input = validateBody(positionByCentralSchema, ctx.request.body, positionMessage);
      await reportPosition(rt, apiUserOf(ctx), input);
      ctx.body = positionBody();
    },
  );
  return router;
}
