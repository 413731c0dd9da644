/**
 * The documents pass the ecosystem's own checkers (D19, issue 27): the OpenAPI
 * document has no error under Spectral's `spectral:oas` ruleset (.spectral.yaml)
 * nor under Redocly CLI's recommended rules (redocly.yaml), and the AsyncAPI
 * document parses with @asyncapi/parser with no error-severity diagnostic.
 * Warnings are allowed; every finding is printed when the test fails.
 */
import { Parser } from '@asyncapi/parser';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { asyncApiDocument } from '../../../src/api/document/asyncapi.js';
import { openApiDocument } from '../../../src/api/document/openapi.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const ROOT = process.cwd();

/** A package's command-line script, run with this Node (no npx, no network). */
function bin(pkg: string, name: string): string {
  const manifest = require.resolve(`${pkg}/package.json`, { paths: [ROOT] });
  const bins = (require(manifest) as { bin: Record<string, string> }).bin;
  return path.join(path.dirname(manifest), bins[name]);
}

/** Runs a checker; its findings come on stdout whatever its exit code (non-zero when it found errors). */
async function stdoutOf(script: string, args: string[]): Promise<string> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  try {
    return (await run(process.execPath, [script, ...args], { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    if (e.stdout?.trim()) return e.stdout;
    throw new Error(`${path.basename(script)} failed without findings: ${e.stderr ?? String(err)}`);
  }
}

interface Finding {
  rule: string;
  error: boolean;
  where: string;
  message: string;
}

const show = (fs: Finding[]) => fs.map((f) => `${f.error ? 'error' : 'warning'} ${f.rule} at ${f.where}: ${f.message}`).join('\n');

describe('the OpenAPI and AsyncAPI documents pass the ecosystem’s checkers', function () {
  this.timeout(120_000);
  let dir: string;
  let openapiFile: string;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'broker-docs-'));
    openapiFile = path.join(dir, 'openapi.json');
    await writeFile(openapiFile, JSON.stringify(openApiDocument(), null, 2));
    await writeFile(path.join(dir, 'asyncapi.json'), JSON.stringify(asyncApiDocument(), null, 2));
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('OpenAPI: no error under Spectral’s spectral:oas ruleset', async () => {
    const out = await stdoutOf(bin('@stoplight/spectral-cli', 'spectral'), ['lint', '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format', 'json', openapiFile]);
    const results = JSON.parse(out.slice(out.indexOf('['))) as Array<{ code: string; severity: number; path: string[]; message: string }>;
    const findings = results.map((r) => ({ rule: r.code, error: r.severity === 0, where: r.path.join('.'), message: r.message }));
    const errors = findings.filter((f) => f.error);
    expect(errors, `Spectral found errors:\n${show(findings)}`).to.deep.equal([]);
  });

  it('OpenAPI: no error under Redocly CLI’s recommended rules', async () => {
    const out = await stdoutOf(bin('@redocly/cli', 'redocly'), ['lint', '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json', openapiFile]);
    const report = JSON.parse(out.slice(out.indexOf('{'))) as {
      totals: { errors: number };
      problems: Array<{ ruleId: string; severity: string; message: string; location?: Array<{ pointer?: string }> }>;
    };
    const findings = report.problems.map((p) => ({ rule: p.ruleId, error: p.severity === 'error', where: p.location?.[0]?.pointer ?? '?', message: p.message }));
    expect(findings.filter((f) => f.error), `Redocly found errors:\n${show(findings)}`).to.deep.equal([]);
    expect(report.totals.errors, show(findings)).to.equal(0);
  });

  it('AsyncAPI: parses with @asyncapi/parser with no error diagnostic', async () => {
    const diagnostics = await new Parser().validate(JSON.stringify(asyncApiDocument()));
    // DiagnosticSeverity (@stoplight/types): 0 error, 1 warning, 2 information, 3 hint
    const findings = diagnostics.map((d) => ({ rule: String(d.code), error: d.severity === 0, where: d.path.join('.'), message: d.message }));
    expect(findings.filter((f) => f.error), `@asyncapi/parser found errors:\n${show(findings)}`).to.deep.equal([]);
  });
});
