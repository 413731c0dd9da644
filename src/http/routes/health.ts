/** GET /health: 200 once the process serves and both PostgreSQL and Redis answer; 503 otherwise, within a few seconds. */
import type { Runtime } from '../../domain/ports.js';
import { health } from '../../api/system/system.js';
import { Answer } from '../../api/operation.js';
import { route, type Route } from '../mount.js';

/** How long each dependency may take to answer before it counts as down. */
const CHECK_TIMEOUT_MS = 2000;

export function healthRoutes(rt: Pick<Runtime, 'orm' | 'redis'>): Route[] {
  return [
    route(health, async () => {
      const [postgres, redis] = await Promise.all([
        probe(() => rt.orm.em.fork().getConnection().execute('select 1')),
        probe(() => rt.redis.ping()),
      ]);
      const healthy = postgres === 'ok' && redis === 'ok';
      return new Answer(healthy ? 200 : 503, { status: healthy ? 'ok' : 'unavailable', postgres, redis, timestamp: new Date().toISOString() });
    }),
  ];
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
