/**
 * Health (D21), each probe bounded so that it answers within a few seconds:
 * - GET /health: 200 once the process serves and both PostgreSQL and Redis answer; 503 otherwise;
 * - GET /health/live: 200 while the process runs (an orchestrator's liveness probe);
 * - GET /health/ready: 200 only while PostgreSQL and Redis answer and no migration is pending; 503 naming what
 *   is missing (the readiness probe: traffic goes only to a ready process).
 */
import type { Runtime } from '../../domain/ports.js';
import { health, healthLive, healthReady } from '../../api/system/system.js';
import { Answer } from '../../api/operation.js';
import { VERSION } from '../../version.js';
import { route, type Route } from '../mount.js';

/** How long each dependency may take to answer before it counts as down. */
const CHECK_TIMEOUT_MS = 2000;

type Probe = 'ok' | 'down';

export function healthRoutes(rt: Pick<Runtime, 'orm' | 'redis'>): Route[] {
  const dependencies = () =>
    Promise.all([probe(() => rt.orm.em.fork().getConnection().execute('select 1')), probe(() => rt.redis.ping())]);
  // Migrations are never undone: once none is pending, that stays true for the process's life.
  let migrated = false;
  const migrations = async (postgres: Probe): Promise<'ok' | 'pending' | 'unknown'> => {
    if (migrated) return 'ok';
    if (postgres !== 'ok') return 'unknown';
    const pending = await bounded(() => rt.orm.migrator.getPendingMigrations());
    if (pending === null) return 'unknown';
    migrated = pending.length === 0;
    return migrated ? 'ok' : 'pending';
  };
  return [
    route(health, async () => {
      const [postgres, redis] = await dependencies();
      const healthy = postgres === 'ok' && redis === 'ok';
      return new Answer(healthy ? 200 : 503, { status: healthy ? 'ok' : 'unavailable', postgres, redis, timestamp: new Date().toISOString() });
    }),
    route(healthLive, () => ({ status: 'ok', version: VERSION, uptimeS: Math.round(process.uptime() * 10) / 10 })),
    route(healthReady, async () => {
      const [postgres, redis] = await dependencies();
      const migrationState = await migrations(postgres);
      const missing = [
        ...(postgres === 'ok' ? [] : ['postgres']),
        ...(redis === 'ok' ? [] : ['redis']),
        ...(migrationState === 'ok' ? [] : ['migrations']),
      ];
      const ready = missing.length === 0;
      return new Answer(ready ? 200 : 503, { status: ready ? 'ok' : 'unavailable', version: VERSION, missing, postgres, redis, migrations: migrationState });
    }),
  ];
}

/** `check`'s value when it resolves within CHECK_TIMEOUT_MS; null when it fails or takes longer. */
async function bounded<T>(check: () => Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([Promise.resolve().then(check).catch(() => null), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** 'ok' when `check` resolves within CHECK_TIMEOUT_MS, 'down' when it fails or takes longer. */
async function probe(check: () => Promise<unknown>): Promise<Probe> {
  return (await bounded(async () => (await check(), true))) ? 'ok' : 'down';
}
