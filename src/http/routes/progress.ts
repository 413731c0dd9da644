/** PUT /estado-servicio (D11): a central reports progress with its API key; envelope {status, data} as PUT /aceptacion. */
import Router from '@koa/router';
import { PROGRESS_MESSAGES, progressMessage, progressSchema, reportServiceProgress } from '../../domain/offers/operations/progress.js';
import type { Runtime } from '../../main/runtime.js';
import { apiKeyAuth } from '../auth/index.js';
import { apiUserOf } from '../caller.js';
import type { AppState } from '../context.js';
import { envelope } from '../middleware/envelope.js';
import { failureMessage } from '../middleware/failure.js';
import { progressBody } from '../presenters/progress.js';
import { validateBody } from '../validation.js';

export function progressRoutes(rt: Runtime): Router<AppState> {
  const router = new Router<AppState>();
  router.put(
    '/estado-servicio',
    apiKeyAuth(() => rt.orm.em, '/estado-servicio'),
    envelope('acceptance'),
    failureMessage(rt.log, PROGRESS_MESSAGES.internal),
    async (ctx) => {
      const input = validateBody(progressSchema, ctx.request.body, progressMessage);
      ctx.body = progressBody(await reportServiceProgress(rt, apiUserOf(ctx), input));
    },
  );
  return router;
}
