import type { Next } from 'koa';
import type { Logger } from 'pino';
import { DomainError } from '../../domain/errors.js';
import type { AppContext } from '../context.js';
import { HttpError, RequestError, newErrorId } from '../../envelopes.js';
import { isOutage } from '../../outage.js';

/** Errors that are already answers: they pass an endpoint's failure message unchanged (PostgreSQL or Redis away: a 503, D21). */
export function isAnswerError(err: unknown): boolean {
  return err instanceof HttpError || err instanceof RequestError || err instanceof DomainError || isOutage(err);
}

/**
 * An endpoint's own answer to an unexpected failure (spec 7.3: a handled
 * failure inside an endpoint is `{status: false, msg}` with 500, or `{status:
 * false, data}` in the data envelope), e.g. POST /no-asignacion's
 * `OCURRIÓ UN ERROR AL PROCESAR LA NO ASIGNACIÓN DEL SERVICIO`. Errors that
 * are already values pass through unchanged.
 */
export function failureMessage(log: Logger, msg: string) {
  return async function endpointFailure(ctx: AppContext, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      if (isAnswerError(err)) throw err;
      const errorId = newErrorId();
      log.error({ err, errorId, method: ctx.method, path: ctx.path }, 'endpoint failed');
      throw new RequestError(500, msg);
    }
  };
}
