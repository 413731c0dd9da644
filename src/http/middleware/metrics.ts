/**
 * `http_request_duration_seconds` (D19) by method, the declared route's path
 * template (never the raw URL: the label set stays bounded) and status. A
 * request no declared route matched (unknown routes, the mounted Bull Board)
 * is labelled `unmatched`.
 */
import type { Next } from 'koa';
import { httpDuration } from '../../metrics/metrics.js';
import type { AppContext } from '../context.js';

export async function requestDuration(ctx: AppContext, next: Next): Promise<void> {
  const end = httpDuration.startTimer();
  try {
    await next();
  } finally {
    const route = (ctx as unknown as { _matchedRoute?: string | RegExp })._matchedRoute;
    end({ method: ctx.method, route: typeof route === 'string' ? route : 'unmatched', status: String(ctx.status) });
  }
}
