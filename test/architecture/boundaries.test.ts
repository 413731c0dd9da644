/**
 * The domain does not speak HTTP (issue 10 item 2): no file under src/domain,
 * src/geo or src/geocoding imports src/http, and the socket layer does not
 * borrow the HTTP edge's Koa authentication (credentials live in src/auth).
 * Errors leave the domain as DomainErrors (src/domain/errors.ts) and the edge
 * maps them (src/http/errorMap.ts). A plain scan of the TypeScript sources,
 * type-only imports included.
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

function tsFiles(dir: string): string[] {
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
    const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
    out.push(relative(ROOT, target).split(sep).join('/'));
  }
  return out;
}

interface Rule {
  from: string;
  forbidden: string;
}

const RULES: Rule[] = [
  { from: 'src/domain', forbidden: 'src/http' },
  { from: 'src/geo', forbidden: 'src/http' },
  { from: 'src/geocoding', forbidden: 'src/http' },
  { from: 'src/realtime', forbidden: 'src/http/auth' },
];

function violations(rule: Rule): string[] {
  return tsFiles(join(ROOT, rule.from)).flatMap((file) =>
    importsOf(file, readFileSync(file, 'utf8'))
      .filter((target) => target === rule.forbidden || target.startsWith(`${rule.forbidden}/`))
      .map((target) => `${relative(ROOT, file).split(sep).join('/')} imports ${target}`),
  );
}

describe('module boundaries (issue 10)', () => {
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

  for (const rule of RULES) {
    it(`no file under ${rule.from} imports ${rule.forbidden}`, () => {
      expect(tsFiles(join(ROOT, rule.from))).to.not.be.empty;
      expect(violations(rule)).to.deep.equal([]);
    });
  }
});
