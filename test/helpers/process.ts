/**
 * A spawned API role (dist/src/main/web.js) on a port of its own, over the test run's database and
 * Redis prefix, for tests that must see the process survive what they send (issue 8).
 */
import got from 'got';
import { freePort } from './ports.js';
import { spawnEntry, type Spawned } from './spawn.js';
import { waitFor } from './wait.js';

export interface ApiProcess {
  proc: Spawned;
  port: number;
  url: string;
  /** GET /health's status code (0 when no answer came); throws when the process has exited */
  health(): Promise<number>;
  stop(): Promise<void>;
}

export async function spawnApi(env: Record<string, string> = {}): Promise<ApiProcess> {
  const port = await freePort();
  const proc = spawnEntry('dist/src/main/web.js', { PORT: String(port), LOG_LEVEL: 'info', SWEEP_INTERVAL_MS: '0', ...env });
  const url = `http://127.0.0.1:${port}`;
  const health = async (): Promise<number> => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
      throw new Error(`the API process exited (${proc.child.exitCode ?? proc.child.signalCode}): ${proc.stderr()}${proc.stdout().slice(-4000)}`);
    }
    const res = await got(`${url}/health`, { throwHttpErrors: false, retry: { limit: 0 }, timeout: { request: 5000 } }).catch(() => null);
    return res?.statusCode ?? 0;
  };
  await waitFor(async () => (await health()) === 200, { timeoutMs: 30000, what: 'the API process to be healthy' });
  return {
    proc,
    port,
    url,
    health,
    async stop() {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
      proc.child.kill('SIGTERM');
      await proc.exited;
    },
  };
}
