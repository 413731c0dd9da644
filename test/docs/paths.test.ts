/**
 * Every repository path the README and docs/architecture.md name exists (issue 27 item 5), so the two documents a
 * newcomer reads first cannot drift from the tree unnoticed.
 *
 * What counts as a path, in those two files (fenced code blocks and lines indented by four spaces, which are code,
 * are skipped):
 * - an inline code span (`…`) that contains a `/`, no whitespace, and no character of a URL, route template, glob or
 *   placeholder (`:` after stripping a `:line` suffix, `*`, `?`, `<`, `>`, `{`, `}`, `[`, `]`, `$`, `…`, `,`, `=`, `@`,
 *   `|`, quotes), does not start with `/` (a route such as `/api/v3/oferta`, a socket path, an absolute file) nor with
 *   `../` (outside the repository, e.g. the shared spec), and looks like a file or folder: it ends with `/`, or its
 *   last segment has an extension (`.ts`, `.md`, `.json`…), or its first segment is an entry of the folder it is
 *   read against (so `.ci/run` counts, `offer-distribution/distribute`, a queue and job name, and
 *   `application/json` do not);
 * - the target of a relative Markdown link (`[text](docs/scale.md#figures)`), without its `#anchor`.
 * A `#anchor` is dropped before the check. The README's paths are read against the repository root; those of
 * docs/architecture.md against `src/`, as that file says, unless their first segment is an entry of the root
 * (`test/`, `workers/`, `docs/`, `config/`, `bench/`), and its links against `docs/`.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
const ROOT_ENTRIES = new Set(readdirSync(ROOT));

/** Markdown outside code blocks: fenced blocks and four-space indented lines removed. */
function prose(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .filter((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return false;
      }
      return !fenced && !/^( {4}|\t)/.test(line);
    })
    .join('\n');
}

const NOT_A_PATH = /[\s:*?<>{}[\]$…,=@|'"]/;

/** The inline code spans of some prose that name a path, as written (anchor and `:line` dropped). */
export function codePaths(text: string, entriesOf: (first: string) => boolean): string[] {
  const out: string[] = [];
  for (const m of prose(text).matchAll(/(`+)([^`]+?)\1(?!`)/g)) {
    const span = m[2].trim().replace(/#.*$/, '').replace(/:\d+(:\d+)?$/, '');
    if (!span.includes('/') || NOT_A_PATH.test(span) || span.startsWith('/') || span.startsWith('../')) continue;
    const segments = span.split('/').filter(Boolean);
    const last = segments[segments.length - 1] ?? '';
    const looksLikePath = span.endsWith('/') || /\.[A-Za-z0-9]+$/.test(last) || entriesOf(segments[0]);
    if (looksLikePath) out.push(span);
  }
  return out;
}

/** The relative targets of the Markdown links of some prose (no URL, no bare anchor), anchor dropped. */
export function linkPaths(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
    .map((target) => target.replace(/#.*$/, ''));
}

interface Named {
  /** where a span is read from */
  base(path: string): string;
  written: string;
}

function missing(doc: string, resolve: (path: string) => string, linkBase: string): string[] {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  const named: Named[] = [
    ...codePaths(text, (first) => ROOT_ENTRIES.has(first) || (doc === 'docs/architecture.md' && SRC_ENTRIES.has(first))).map((written) => ({
      written,
      base: resolve,
    })),
    ...linkPaths(text).map((written) => ({ written, base: (p: string) => join(linkBase, p) })),
  ];
  return [...new Set(named.filter((n) => !existsSync(join(ROOT, n.base(n.written)))).map((n) => `${doc}: ${n.written}`))];
}

const SRC_ENTRIES = new Set(readdirSync(join(ROOT, 'src')));

describe('paths named in the README and docs/architecture.md (issue 27)', () => {
  it('the rule takes files, folders and entries of the tree, and leaves routes, URLs, globs and names alone', () => {
    const text = [
      'See `src/main/all.ts`, `docs/`, `.ci/run`, `config/index.ts:12`, `docs/decisions.md#geo-4` and `dist/test/a.test.js`.',
      'Not: `/api/v3/oferta`, `POST /oferta`, `http://127.0.0.1:3000/admin/login`, `src/**/*.ts`, `src/api/<area>/`,',
      '`offer-distribution/distribute`, `application/json`, `10.20.0.0/16`, `../shared/spec/decisions.md`, `{uuid}/x.ts`,',
      '`hooks.internal,10.20.0.0/16`, `x-apikey`.',
      '```',
      'cat `src/in/a/fence.ts`',
      '```',
      '    `src/indented/code.ts`',
    ].join('\n');
    expect(codePaths(text, (first) => ROOT_ENTRIES.has(first))).to.deep.equal([
      'src/main/all.ts',
      'docs/',
      '.ci/run',
      'config/index.ts',
      'docs/decisions.md',
      'dist/test/a.test.js',
    ]);
    expect(linkPaths('[a](docs/scale.md#figures), [b](https://example.com/x.md), [c](#run), [d](../README.md)')).to.deep.equal([
      'docs/scale.md',
      '../README.md',
    ]);
  });

  it('every path the README names exists', () => {
    expect(missing('README.md', (p) => p, '.')).to.deep.equal([]);
  });

  it('every path docs/architecture.md names exists (under src/ unless it names a folder of the root)', () => {
    const resolve = (p: string) => (ROOT_ENTRIES.has(p.split('/')[0]) ? p : join('src', p));
    expect(missing('docs/architecture.md', resolve, 'docs')).to.deep.equal([]);
  });
});
