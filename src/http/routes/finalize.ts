/**
 * POST /finalize (spec 4.4): Basic or an operator's JWT. Its 401 uses the
 * controller envelope `{status: false, msg}` as 4.4 lists it (the other
 * Basic endpoints keep the system envelope of 5.1).
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { FINALIZE_MESSAGES, finalizeService, type FinalizeCaller } from '../../domain/offers/operations/finalize.js';
import type { Runtime } from '../../main/runtime.js';
import { basicOrJwtAuth } from '../auth/index.js';
import type { AppContext, AppState } from '../context.js';
import { HttpError, controllerError } from '../errors.js';
import { failureMessage } from '../middleware/failure.js';
import { finalizedBody } from '../presenters/operations.js';
import { finalizeSchema } from '../schemas/operations.js';
import { validateBody } from '../validation.js';

/** Runs an authentication middleware, answering its 401s in the controller envelope with the same message. */
function unauthorizedAsController(auth: Middleware<AppState>): Middleware<AppState> {
  return async (ctx, next) => {
    let passed = false;
    try {
      await auth(ctx, async () => {
        passed = true;
      });
    } catch (err) {
      if (err instanceof HttpError && err.status === 401) throw controllerError(401, err.message);
      throw err;
    }
    if (passed) await next();
  };
}

function callerOf(ctx: AppContext): FinalizeCaller {
  if (ctx.state.operator) return { operator: ctx.state.operator };
  if (ctx.state.apiUser) return { apiUser: ctx.state.apiUser };
  throw new Error('route reached without a caller');
}

export function finalizeRoutes(rt: Runtime): Router<AppState> {
  const router = new Router<AppState>();
  const auth = unauthorizedAsController(basicOrJwtAuth(() => rt.orm.em, '/finalize', rt.config.jwtSecret));
  router.post('/finalize', failureMessage(rt.log, FINALIZE_MESSAGES.internal), auth, async (ctx) => {
    const body = validateBody(finalizeSchema, ctx.request.body, () => FINALIZE_MESSAGES.missing);
    await finalizeService(rt, callerOf(ctx), body.uuid);
    ctx.body = finalizedBody();
  });
  return router;
}
