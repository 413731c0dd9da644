import Router from '@koa/router';
import type { Runtime } from '../../main/runtime.js';
import type { AppState } from '../context.js';

/** GET /health: 200 once the process serves and both PostgreSQL and Redis answer; 503 otherwise. */
export function healthRoutes(rt: Pick<Runtime, 'orm' | 'redis'>): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/health', async (ctx) => {
    const [postgres, redis] = await Promise.all([
      rt.orm.em
        .fork()
        .getConnection()
        .execute('select 1')
        .then(() => 'ok' as const)
        .catch(() => 'down' as const),
      withTimeout(rt.redis.ping(), 2000)
        .then(() => 'ok' as const)
        .catch(() => 'down' as const),
    ]);
    const healthy = postgres === 'ok' && redis === 'ok';
    ctx.status = healthy ? 200 : 503;
    ctx.body = { status: healthy ? 'ok' : 'unavailable', postgres, redis, timestamp: new Date().toISOString() };
  });
  return router;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timeout')), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
