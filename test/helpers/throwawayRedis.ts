/**
 * A Redis of the test's own (Debian's redis-server on a free port, no persistence), which the fault test kills with
 * SIGKILL and starts again empty (issue 30, item 4). Never the machine's Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';
import { waitFor } from './wait.js';

export interface ThrowawayRedis {
  port: number;
  url: string;
  /** SIGKILL: every key is lost (no persistence) */
  kill(): Promise<void>;
  /** starts it again on the same port, empty */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;

  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], {
      stdio: 'ignore',
    });
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await waitFor(
        async () => {
          try {
            if (probe.status !== 'ready') await probe.connect();
            return (await probe.ping()) === 'PONG';
          } catch {
            probe.disconnect();
            return false;
          }
        },
        { timeoutMs: 10000, intervalMs: 50, what: `redis-server on ${port}` },
      );
    } finally {
      probe.disconnect();
    }
  };

  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill('SIGKILL');
    await exited;
  };

  await start();
  return { port, url, kill, start, close: kill };
}
