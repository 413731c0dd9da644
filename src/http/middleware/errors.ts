import type { Next } from 'koa';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { HttpError, MESSAGES, newErrorId, systemBody } from '../errors.js';

interface BodyParserError extends Error {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
}

/**
 * Turns every error into its envelope: HttpError as it says; body-parser
 * failures as 400/413; anything else as the 500 system envelope whose
 * errorId is in the log line.
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
      if (err instanceof HttpError) {
        ctx.status = err.status;
        ctx.set(err.headers);
        ctx.body = err.body;
        return;
      }
      const e = err as BodyParserError;
      const status = e.status ?? e.statusCode;
      if (status === 413 || e.type === 'entity.too.large') {
        ctx.status = 413;
        ctx.body = systemBody(MESSAGES.bodyTooLarge);
        return;
      }
      if (status === 400 && (e.type === 'entity.parse.failed' || e.name === 'SyntaxError')) {
        ctx.status = 400;
        ctx.body = { status: false, msg: MESSAGES.malformedJson };
        return;
      }
      if (status === 400 && e.expose) {
        ctx.status = 400;
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
