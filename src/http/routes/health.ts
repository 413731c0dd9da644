import Router from '@koa/router';
import type { Runtime } from '../../main/runtime.js';
import type { AppState } from '../context.js';

/** How long each dependency may take to answer before it counts as down. */
const CHECK_TIMEOUT_MS = 2000;

/** GET /health: 200 once the process serves and both PostgreSQL and Redis answer; 503 otherwise, within a few seconds. */
export function healthRoutes(rt: Pick<Runtime, 'orm' | 'redis'>): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/health', async (ctx) => {
    const [postgres, redis] = await Promise.all([
      probe(() => rt.orm.em.fork().getConnection().execute('select 1')),
      probe(() => rt.redis.ping()),
    ]);
    const healthy = postgres === 'ok' && redis === 'ok';
    ctx.status = healthy ? 200 : 503;
    ctx.body = { status: healthy ? 'ok' : 'unavailable', postgres, redis, timestamp: new Date().toISOString() };
  });
  return router;
}

/** 'ok' when `check` resolves within CHECK_TIMEOUT_MS, 'down' when it fails or takes longer. */
async function probe(check: () => Promise<unknown>): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'down'>((resolve) => {
    timer = setTimeout(() => resolve('down'), CHECK_TIMEOUT_MS);
  });
  const answer = Promise.resolve()
    .then(check)
    .then(
      () => 'ok' as const,
      () => 'down' as const,
    );
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
