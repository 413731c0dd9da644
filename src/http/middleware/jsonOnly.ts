import type { Next } from 'koa';
import type { AppContext } from '../context.js';
import { MESSAGES, controllerError } from '../errors.js';

/** A request that carries a body must say it is JSON; otherwise 415 in the controller envelope. */
export async function jsonOnly(ctx: AppContext, next: Next): Promise<void> {
  const hasBody = ctx.get('transfer-encoding') !== '' || Number(ctx.get('content-length')) > 0;
  if (hasBody && !ctx.request.is('json', '+json')) throw controllerError(415, MESSAGES.unsupportedMediaType);
  await next();
}
