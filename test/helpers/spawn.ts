import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Spawned {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The checkout's root (where package.json and dist/ are). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The test run's environment with `env` over it; an undefined value removes the variable. */
function environment(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

function collect(child: ChildProcessWithoutNullStreams): Spawned {
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  // 'close', not 'exit': the process has exited and its output has been read to the end.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs one of the compiled entry points (e.g. dist/src/main/web.js) with `env` over the test run's environment. */
export function spawnEntry(script: string, env: Record<string, string | undefined>): Spawned {
  return collect(spawn(process.execPath, [script], { env: environment(env) }));
}

/**
 * Runs an npm script in the checkout (`npm run start:api`) in a process group
 * of its own, so `killGroup` reaches npm and the node process it started.
 */
export function spawnNpm(args: string[], env: Record<string, string | undefined>): Spawned {
  return collect(spawn('npm', args, { cwd: ROOT, env: environment(env), detached: true }));
}

/** Signals a `spawnNpm` process group; quiet when it is gone already. */
export function killGroup(p: Spawned, signal: NodeJS.Signals): void {
  try {
    process.kill(-p.child.pid!, signal);
  } catch {
    // already gone
  }
}

/** Whether a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The JSON log lines of a process's output (plain lines, e.g. the demo credentials, are skipped). */
export function logLines(output: string): Array<Record<string, unknown> & { msg: string; pid: number }> {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown> & { msg: string; pid: number });
}
