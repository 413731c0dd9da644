/**
 * CPU profiles for the benches (BENCH_CPU_PROF=1): the `node` arguments that
 * make a process write one when it exits, and a summary of those written
 * during a run.
 */
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { f1 } from './format.js';

/** Where profiles go: `bench-profiles/` under the working directory (not in git). */
export const PROFILE_DIR = join(process.cwd(), 'bench-profiles');

/** `node` arguments for a process that writes its CPU profile to PROFILE_DIR when it exits. */
export function profileArgs(): string[] {
  mkdirSync(PROFILE_DIR, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`];
}

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}


/** The package a frame's file belongs to: `pg`, `@mikro-orm/core`, or `src/<folder>` for our own code. */
function packageOf(url: string): string | null {
  const lib = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (lib) return lib[1];
  const own = /\/dist\/((?:src|workers)\/[^/]+)/.exec(url);
  return own ? own[1].replace(/\.js$/, '') : null;
}

/**
 * For each .cpuprofile file written since `since`: the top self-time frames,
 * each with the code that led to it (its nearest callers in our code, dist/,
 * or a library, node_modules/), so that a native frame (a socket write) is
 * tied to who wrote; then self time by package, a native or Node-internal
 * frame counted for the package of its nearest caller that has one.
 */
export function summariseProfiles(dir: string, since: number, top = 15): void {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).mtimeMs >= since);
  const name = (n: Node) => {
    const url = n.callFrame.url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/');
    return `${n.callFrame.functionName || '(anonymous)'} ${url}:${n.callFrame.lineNumber + 1}`;
  };
  for (const file of files) {
    const prof = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    const byId = new Map(prof.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const ours = (n: Node) => /\/(dist|node_modules)\//.test(n.callFrame.url);
    const self = new Map<string, number>();
    const callers = new Map<string, Map<string, number>>();
    const packages = new Map<string, number>();
    let total = 0;
    let idle = 0;
    prof.samples.forEach((id, i) => {
      const n = byId.get(id)!;
      const dt = prof.timeDeltas[i] ?? 0;
      total += dt;
      if (n.callFrame.functionName === '(idle)') {
        idle += dt;
        return;
      }
      const key = name(n);
      self.set(key, (self.get(key) ?? 0) + dt);
      let owner: number | undefined = n.id;
      while (owner !== undefined && !ours(byId.get(owner)!)) owner = parent.get(owner);
      if (!ours(n)) {
        const via = owner === undefined ? '(none)' : name(byId.get(owner)!);
        const m = callers.get(key) ?? new Map<string, number>();
        m.set(via, (m.get(via) ?? 0) + dt);
        callers.set(key, m);
      }
      const pkg = owner === undefined ? n.callFrame.functionName || '(native)' : packageOf(byId.get(owner)!.callFrame.url)!;
      packages.set(pkg, (packages.get(pkg) ?? 0) + dt);
    });
    if (total === 0) continue;
    const busy = total - idle;
    const share = (us: number) => `${f1((100 * us) / busy).padStart(5)} %`;
    console.log(`\nprofile ${file}: ${f1(total / 1e6)} s sampled, ${f1(busy / 1e6)} s busy; top self time (% of busy)`);
    for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`  ${share(us)}  ${key}`);
      const via = [...(callers.get(key) ?? [])].sort((a, b) => b[1] - a[1]).slice(0, 3);
      for (const [v, t] of via) if (v !== '(none)') console.log(`           ${share(t)} via ${v}`);
    }
    console.log('  by package (a native frame counts for its nearest caller\'s):');
    for (const [pkg, us] of [...packages].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${share(us)}  ${pkg}`);
  }
}
