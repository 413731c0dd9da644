import type { Next } from 'koa';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { HttpError, controllerError, newErrorId } from '../errors.js';

/**
 * An endpoint's own answer to an unexpected failure (spec 7.3: a handled
 * failure inside an endpoint is `{status: false, msg}` with 500), e.g. POST
 * /no-asignacion's `OCURRIÓ UN ERROR AL PROCESAR LA NO ASIGNACIÓN DEL
 * SERVICIO`. Errors that are already values pass through unchanged.
 */
export function failureMessage(log: Logger, msg: string) {
  return async function endpointFailure(ctx: AppContext, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      if (err instanceof HttpError) throw err;
      const errorId = newErrorId();
      log.error({ err, errorId, method: ctx.method, path: ctx.path }, 'endpoint failed');
      throw controllerError(500, msg);
    }
  };
}
