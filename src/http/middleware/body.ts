/**
 * Request bodies: koa-bodyparser, with every failure of parsing mapped to the
 * client error it is (never a 500): too large → 413 (system envelope),
 * unsupported encoding or charset → 415, anything else (bad JSON, bad
 * compression, a body cut short) → 400.
 */
import type { Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import type { AppContext } from '../context.js';
import { HttpError, MESSAGES, controllerError, systemError } from '../../envelopes.js';

interface ParserError extends Error {
  status?: number;
  type?: string;
}

function bodyError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const e = err as ParserError;
  if (e.status === 413 || e.type === 'entity.too.large') return systemError(413, MESSAGES.bodyTooLarge);
  if (e.status === 415) return controllerError(415, MESSAGES.unsupportedEncoding);
  return controllerError(400, MESSAGES.malformedJson);
}

function parsed(opts: bodyParser.Options) {
  const parse = bodyParser(opts);
  return async (ctx: AppContext, next: Next): Promise<void> => {
    try {
      await parse(ctx, async () => undefined);
    } catch (err) {
      throw bodyError(err);
    }
    await next();
  };
}

/** JSON bodies (objects and arrays) up to `limit`; a body of another type answers 415. */
export function jsonBody(limit: string) {
  const parse = parsed({ enableTypes: ['json'], jsonLimit: limit, strict: true });
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const hasBody = ctx.get('transfer-encoding') !== '' || Number(ctx.get('content-length')) > 0;
    if (hasBody && !ctx.request.is('json', '+json')) throw controllerError(415, MESSAGES.unsupportedMediaType);
    await parse(ctx, next);
  };
}

/** Form-encoded bodies (the operators' login form) up to `limit`. */
export function formBody(limit: string) {
  return parsed({ enableTypes: ['form'], formLimit: limit });
}
