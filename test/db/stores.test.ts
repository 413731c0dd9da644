/**
 * Each table's statements have one home (issue 27 item 3): every statement on
 * a table stands in src/db/stores (migrations aside), so whoever adds a
 * column finds them all there; the stores sit below the domain and import
 * nothing of it. A plain scan of the TypeScript sources.
 */
import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
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

const rel = (file: string) => relative(ROOT, file).split(sep).join('/');

/** Every table the migrations create. */
function tables(): string[] {
  const out = new Set<string>();
  for (const file of tsFiles(join(ROOT, 'src/db/migrations'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/create table (?:if not exists )?"?(\w+)"?/gi)) out.add(m[1].toLowerCase());
  }
  return [...out].sort();
}

describe('stores: each table’s statements in src/db/stores', () => {
  it('no file outside src/db/stores (and the migrations) holds a statement on a table', () => {
    const all = tables();
    expect(all).to.include.members(['offer', 'technician', 'webhook_delivery', 'offer_recipient']);
    const found: string[] = [];
    for (const file of [...tsFiles(join(ROOT, 'src')), ...tsFiles(join(ROOT, 'workers'))]) {
      const path = rel(file);
      if (path.startsWith('src/db/stores/') || path.startsWith('src/db/migrations/')) continue;
      // The demo is an outside client of the service (it imports none of it): it reads the SMS outbox the way
      // docs/operations.md tells an operator to, with its own connection.
      if (path.startsWith('src/demo/')) continue;
      const text = readFileSync(file, 'utf8');
      for (const table of all) {
        if (!new RegExp(`\\b(from|into|update|join)\\s+"?${table}"?\\b`, 'i').test(text)) continue;
        found.push(`${path}: ${table}`);
      }
    }
    expect(found).to.deep.equal([]);
  });

  it('the stores import nothing of src/domain, src/http, src/realtime or src/main', () => {
    const found: string[] = [];
    for (const file of tsFiles(join(ROOT, 'src/db/stores'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/from\s+'(\.\.\/[^']+)'/g)) {
        const target = rel(join(dirname(file), m[1]));
        if (/^src\/(domain|http|realtime|main)\//.test(target)) found.push(`${rel(file)} → ${target}`);
      }
    }
    expect(found).to.deep.equal([]);
  });
});
