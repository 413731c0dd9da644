import type { Next } from 'koa';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { MESSAGES, systemBody } from '../../envelopes.js';

/**
 * Answers 408 (system envelope) when a request is not finished within `ms`,
 * including a body that never finishes arriving. The handler keeps running in
 * the background; whatever it sets afterwards is ignored.
 */
export function timeoutMiddleware(ms: number, log: Logger) {
  return async function requestTimeout(ctx: AppContext, next: Next): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ms);
    });
    const work = next().then(() => 'done' as const);
    try {
      const winner = await Promise.race([work, timedOut]);
      if (winner === 'timeout') {
        work.catch((err: unknown) => log.warn({ err, path: ctx.path }, 'request failed after its timeout'));
        ctx.status = 408;
        ctx.set('Connection', 'close');
        ctx.body = systemBody(MESSAGES.timeout);
      }
    } finally {
      clearTimeout(timer);
    }
  };
}
