/**
 * The layering, enforced (issue 27 item 4). A plain scan of the TypeScript
 * sources under src/, workers/ and config/ (type-only and dynamic imports
 * included) checks:
 * - the rules below, each "no file under `from` imports `forbidden`";
 * - no import circle whose files lie in more than one folder;
 * - at most MAX_UPWARD imports run back up the layer order (LAYERS), each named.
 * The domain states the context it needs (src/domain/ports.ts); src/main builds
 * it from the adapters; both transports call src/api.
 */
import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder above this file with a package.json. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('no package.json above the test');
    dir = up;
  }
  return dir;
}

const ROOT = repoRoot();
const SCANNED = ['src', 'workers', 'config'];

const rel = (path: string): string => relative(ROOT, path).split(sep).join('/');

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /\b(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Repository-relative paths (with /) of every relative module `source` imports, `.js` read as `.ts`. */
export function importsOf(file: string, source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    if (!spec?.startsWith('.')) continue;
    out.push(rel(resolve(dirname(file), spec).replace(/\.js$/, '.ts')));
  }
  return out;
}

export type Graph = Map<string, string[]>;

/** Every scanned file and the files it imports. */
function sourceGraph(): Graph {
  const files = SCANNED.flatMap((dir) => tsFiles(join(ROOT, dir)));
  return new Map(files.map((file) => [rel(file), importsOf(file, readFileSync(file, 'utf8'))]));
}

const under = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

export interface Rule {
  from: string[];
  forbidden: string[];
  why: string;
}

const EDGES = ['src/main', 'src/http', 'src/realtime', 'src/api'];
const ADAPTERS = ['src/webhooks', 'src/sms', 'src/geocoding', 'src/queues'];

export const RULES: Rule[] = [
  { from: ['src/domain', 'src/geo'], forbidden: EDGES, why: 'the domain states its ports (src/domain/ports.ts); the edges and main implement them' },
  { from: ADAPTERS, forbidden: ['src/domain', 'src/geo', ...EDGES], why: 'adapters to the outside know nothing of the domain that uses them' },
  { from: ['src/realtime'], forbidden: ['src/http'], why: 'both transports call src/api, neither the other' },
  { from: ['src/http'], forbidden: ['src/realtime'], why: 'both transports call src/api, neither the other' },
  { from: ['src/api'], forbidden: ['src/http', 'src/realtime', 'src/main'], why: 'the contract is transport-neutral' },
  { from: ['src/auth'], forbidden: EDGES, why: 'credentials are checked the same way for any transport' },
  { from: ['src/db'], forbidden: [...ADAPTERS, 'src/geo', ...EDGES], why: 'the stores and entities are the bottom of the house' },
  { from: ['config'], forbidden: ['src', 'workers'], why: 'the configuration is read before anything of the service' },
  { from: ['src'], forbidden: ['workers'], why: 'workers/ holds entry points and processors; nothing imports them' },
  {
    from: ['src/api', 'src/http', 'src/realtime', 'src/domain', 'src/geo', 'src/auth', 'src/db', 'src/provisioning', 'src/metrics', ...ADAPTERS],
    forbidden: ['src/main'],
    why: 'src/main is the composition root: only entry points (src/main, src/cli, workers) import it',
  },
  { from: ['workers'], forbidden: ['src/http', 'src/realtime', 'src/api'], why: 'processors call the domain, not an edge' },
];

export function violations(graph: Graph, rule: Rule): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    if (!rule.from.some((p) => under(file, p))) continue;
    for (const target of targets) {
      if (rule.forbidden.some((p) => under(target, p))) out.push(`${file} imports ${target}`);
    }
  }
  return out;
}

/** The import circles (strongly connected components, Tarjan) whose files lie in more than one folder. */
export function crossFolderCircles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const circle: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        circle.push(w);
      } while (w !== v);
      if (circle.length > 1 && new Set(circle.map((f) => dirname(f))).size > 1) circles.push(circle.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles;
}

/** From the bottom up: a file may import its own layer and the ones below. */
export const LAYERS: string[][] = [
  ['config'],
  ['src/text.ts', 'src/limits.ts', 'src/logger.ts', 'src/envelopes.ts', 'src/version.ts', 'src/outage.ts'],
  ['src/db'],
  ['src/queues', 'src/geocoding', 'src/webhooks', 'src/sms', 'src/metrics'],
  ['src/auth'],
  ['src/geo', 'src/domain'],
  ['src/provisioning'],
  ['src/api'],
  ['src/http', 'src/realtime'],
  ['src/main', 'src/cli', 'src/demo'],
  ['workers'],
];

/** At most this many imports may run back up; each is listed in the failure. */
export const MAX_UPWARD = 5;

function layerOf(path: string): number {
  let found = -1;
  LAYERS.forEach((layer, i) => {
    if (layer.some((p) => under(path, p))) found = i;
  });
  return found;
}

export function upward(graph: Graph): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) if (layerOf(target) > layerOf(file)) out.push(`${file} imports ${target}`);
  }
  return out;
}

describe('module boundaries (issue 27)', () => {
  const graph = sourceGraph();

  it('the scan sees every form of import, type-only and dynamic included', () => {
    const file = join(ROOT, 'src/domain/offers/example.ts');
    const source = [
      "import { a } from '../../http/errors.js';",
      "import type { B } from '../../http/auth/jwt.js';",
      "export { c } from '../../http/validation.js';",
      "const d = await import('../../http/app.js');",
      "import '../../http/side.js';",
      "import { e } from '@mikro-orm/core';",
    ].join('\n');
    expect(importsOf(file, source)).to.deep.equal([
      'src/http/errors.ts',
      'src/http/auth/jwt.ts',
      'src/http/validation.ts',
      'src/http/app.ts',
      'src/http/side.ts',
    ]);
  });

  it('every scanned file has a layer', () => {
    expect([...graph.keys()].filter((f) => layerOf(f) < 0)).to.deep.equal([]);
  });

  for (const rule of RULES) {
    it(`no file under ${rule.from.join(', ')} imports ${rule.forbidden.join(', ')} (${rule.why})`, () => {
      expect([...graph.keys()].some((f) => rule.from.some((p) => under(f, p)))).to.equal(true);
      expect(violations(graph, rule)).to.deep.equal([]);
    });
  }

  it('no import circle spans folders', () => {
    expect(crossFolderCircles(graph)).to.deep.equal([]);
  });

  it(`at most ${MAX_UPWARD} imports run back up the layers`, () => {
    const up = upward(graph);
    expect(up.length, up.join('\n')).to.be.at.most(MAX_UPWARD);
  });

  it('each check fails on a planted import', () => {
    const planted: Graph = new Map([
      ['src/domain/offers/x.ts', ['src/main/runtime.ts']],
      ['src/realtime/y.ts', ['src/http/app.ts']],
      ['config/z.ts', ['src/text.ts']],
      ['src/main/runtime.ts', ['src/domain/offers/x.ts']],
    ]);
    expect(violations(planted, RULES[0]!)).to.deep.equal(['src/domain/offers/x.ts imports src/main/runtime.ts']);
    expect(violations(planted, RULES[2]!)).to.deep.equal(['src/realtime/y.ts imports src/http/app.ts']);
    expect(violations(planted, RULES.find((r) => r.from[0] === 'config')!)).to.deep.equal(['config/z.ts imports src/text.ts']);
    expect(crossFolderCircles(planted)).to.deep.equal([['src/domain/offers/x.ts', 'src/main/runtime.ts']]);
    expect(upward(planted)).to.have.members(['src/domain/offers/x.ts imports src/main/runtime.ts', 'config/z.ts imports src/text.ts']);
  });
});
