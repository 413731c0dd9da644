/**
 * The service as `npm start` runs it (`node dist/src/main/all.js`, the
 * supervisor and its children, on the same environment), and the
 * provisioning CLI (`npm run provision`'s `node dist/src/cli/provision.js`).
 * The service's log goes to a file; an error-level line (pino level 50 or
 * more) is reported as it comes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The checkout's root, from dist/src/demo/. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ALL = fileURLToPath(new URL('../main/all.js', import.meta.url));
const PROVISION = fileURLToPath(new URL('../cli/provision.js', import.meta.url));

export interface RunningService {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** SIGINT, as Ctrl-C would; resolves with the supervisor's exit code */
  stop(): Promise<number | null>;
}

export function startService(logPath: string, onErrorLine: (line: string) => void): RunningService {
  const log: WriteStream = createWriteStream(logPath, { flags: 'a' });
  // a process group of its own: Ctrl-C reaches the demo, which finishes its services first, then stops the service
  const child = spawn(process.execPath, [ALL], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  // the demo gone (an exception, process.exit), the service goes too
  process.once('exit', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      log.write(`${line}\n`);
      if (!line.startsWith('{')) return;
      try {
        if (Number((JSON.parse(line) as { level?: number }).level) >= 50) onErrorLine(line);
      } catch {
        // not a log line
      }
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then(() => log.end());
  return {
    child,
    exited,
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}

/** Whether nothing listens on the port (else /health would answer for another service, an `npm start` already running). */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}

/** GET /health until 200; throws when the service exits first or `timeoutMs` passes. */
export async function waitHealthy(base: string, service: RunningService, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void service.exited.then(() => (gone = true));
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the service exited (code ${service.child.exitCode}) before it was healthy`);
    const ok = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status === 200, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the service was not healthy within ${timeoutMs} ms`);
}

/** Runs the provisioning CLI on a document; resolves with its output, rejects with it when it fails. */
export function provisionDocument(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PROVISION, path], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`provisioning failed (exit ${code}):\n${out}`))));
  });
}
