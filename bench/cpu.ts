/**
 * CPU and memory of processes, read from /proc (Linux; USER_HZ = 100), for the
 * benchmarks: one process, a process and its descendants (the service as
 * `npm start` runs it, each child named by its entry point and role), and the
 * machine's processes of one name (PostgreSQL's backends, Redis).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/** user and system CPU milliseconds of a process (0 once it is gone) */
export function cpuMs(pid: number): { user: number; system: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  } catch {
    return { user: 0, system: 0 };
  }
}

function pidsOf(name: string): number[] {
  try {
    return execFileSync('pgrep', ['-x', name]).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // none running
  }
}

/** CPU ms of every process named `name`, per pid */
export function cpuByPid(name: string): Map<number, number> {
  return new Map(
    pidsOf(name).map((pid) => {
      const { user, system } = cpuMs(pid);
      return [pid, user + system];
    }),
  );
}

/** What those processes spent in between: one started meanwhile counts whole; one that ended is not seen (pooled connections: neither happens within a run). */
export function spentSince(before: Map<number, number>, after: Map<number, number>): number {
  return [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);
}

export interface TreeProcess {
  pid: number;
  /** its entry point under dist/, and for a worker its role: `workers/main.js (time-critical)` */
  name: string;
  /** resident memory, MB */
  mb: number;
  /** CPU seconds so far, user and system */
  cpuS: number;
}

/** A process and each descendant, with its entry point and role, resident memory and CPU so far. */
export function treeProcesses(root: number): TreeProcess[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const raw = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(raw.slice(raw.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  const out: TreeProcess[] = [];
  const todo = [root];
  while (todo.length) {
    const pid = todo.pop()!;
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      const { user, system } = cpuMs(pid);
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      // the entry point: the last .js argument (npm start's children preload src/main/stopSignals.js first)
      const script = cmd.filter((c) => c.endsWith('.js')).pop() ?? cmd[0] ?? '?';
      // a worker's role: the queues `npm start` gave it (WORKER_QUEUES in its environment)
      const queues = /(?:^|\0)WORKER_QUEUES=([^\0]*)/.exec(readFileSync(`/proc/${pid}/environ`, 'utf8'))?.[1];
      const role = queues ? (queues.includes('offer-evaluation') ? ' (time-critical)' : ' (background)') : '';
      out.push({ pid, name: script.replace(/^.*dist\//, '') + role, mb: kb / 1024, cpuS: (user + system) / 1000 });
    } catch {
      // gone
    }
    for (const [child, ppid] of parents) if (ppid === pid) todo.push(child);
  }
  return out;
}

/** CPU seconds of a process and its descendants so far. */
export function treeCpuSeconds(root: number): number {
  return treeProcesses(root).reduce((sum, p) => sum + p.cpuS, 0);
}
