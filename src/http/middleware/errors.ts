import type { Next } from 'koa';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { errorAnswer } from '../../api/errorTable.js';
import { MESSAGES, newErrorId, systemBody } from '../../envelopes.js';
import { isOutage } from '../../outage.js';

/** What koa's `ctx.throw` and the http-errors package raise. */
interface ExposedError extends Error {
  status?: number;
  expose?: boolean;
}

/**
 * Turns every error into its envelope: an HttpError as it says; a domain
 * error (by its code and the operation's wording, src/api/errorTable.ts) or a RequestError in the route's envelope
 * (`ctx.state.envelope`, controller by default); a client error raised with
 * `ctx.throw(4xx, msg)` in the controller envelope; anything else as the 500
 * system envelope whose errorId is in the log line.
 */
export function errorMiddleware(log: Logger) {
  return async function handleErrors(ctx: AppContext, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      if (ctx.headerSent || !ctx.writable) {
        log.warn({ err, path: ctx.path }, 'error after the response was sent');
        return;
      }
      const answer = errorAnswer(err, ctx.state.envelope ?? 'controller', ctx.state.wording);
      if (answer) {
        if (answer.status === 503 && isOutage(err)) log.warn({ err: String(err), path: ctx.path }, 'answered 503: PostgreSQL or Redis away');
        ctx.status = answer.status;
        ctx.set(answer.headers);
        ctx.body = answer.body;
        return;
      }
      const e = err as ExposedError;
      if (e.expose && e.status !== undefined && e.status >= 400 && e.status < 500) {
        ctx.status = e.status;
        ctx.body = { status: false, msg: e.message };
        return;
      }
      const errorId = newErrorId();
      log.error({ err, errorId, method: ctx.method, path: ctx.path }, 'unhandled error');
      ctx.status = 500;
      ctx.body = systemBody(MESSAGES.internal, errorId);
    }
  };
}
