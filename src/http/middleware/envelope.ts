import type { Next } from 'koa';
import type { AppContext } from '../context.js';
import type { Envelope } from '../errors.js';

/**
 * The error envelope of the route it is mounted on (spec 7): domain errors
 * and RequestErrors raised after it are shaped in it (middleware/errors.ts).
 * Without it a route answers in the controller envelope.
 */
export function envelope(kind: Envelope) {
  return async function setEnvelope(ctx: AppContext, next: Next): Promise<void> {
    ctx.state.envelope = kind;
    await next();
  };
}
