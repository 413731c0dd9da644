/** PUT /estado-servicio (D11): a central reports progress with its API key; envelope {status, data} as PUT /aceptacion. */
import Router from '@koa/router';
import { reportProgress } from '../../domain/offers/operations/progress.js';
import type { Runtime } from '../../main/runtime.js';
import { apiKeyAuth } from '../auth/index.js';
import { apiUserOf } from '../caller.js';
import type { AppState } from '../context.js';

export function progressRoutes(rt: Runtime): Router<AppState> {
  const router = new Router<AppState>();
  router.put('/estado-servicio', apiKeyAuth(() => rt.orm.em, '/estado-servicio'), async (ctx) => {
    const answer = await reportProgress(rt, apiUserOf(ctx), ctx.request.body);
    ctx.status = answer.status;
    ctx.body = answer.body;
  });
  return router;
}
