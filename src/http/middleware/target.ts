/**
 * Issue 8.1: a request target Node accepts but that does not parse as a URL (`GET http://[/v3`)
 * makes every later `ctx.path` throw. It is answered 400 in the system envelope (spec 7.2) before
 * anything else reads the path, and no log line repeats it.
 */
import type { Next } from 'koa';
import type { AppContext } from '../context.js';
import { MESSAGES, systemBody } from '../../envelopes.js';

export async function requestTarget(ctx: AppContext, next: Next): Promise<void> {
  try {
    void ctx.path;
    void ctx.querystring;
  } catch {
    ctx.status = 400;
    ctx.set('Connection', 'close');
    ctx.body = systemBody(MESSAGES.badTarget);
    return;
  }
  await next();
}
