/**
 * docs/alerts.yml and docs/grafana-dashboard.json (issue 31, item 6) name
 * only metrics the service exposes: every series name in their PromQL is one
 * a scrape of a running instance (with a worker, so every family is
 * registered) declares. The JSON parses; the YAML is checked by a line scan
 * (no YAML parser among the dependencies) and docs/operations.md carries the
 * same rules.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { startApp, type TestApp } from '../helpers/harness.js';
import { exposedNames } from './prometheus.js';

const TOKEN = 'scraper-token-of-the-docs-tests';
const ALERTS = readFileSync('docs/alerts.yml', 'utf8');
const OPERATIONS = readFileSync('docs/operations.md', 'utf8');

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

/** The series names a PromQL expression reads: identifiers left once strings, label matchers, ranges and grouping clauses are taken out, functions and keywords aside. */
export function seriesNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const m of bare.matchAll(/(?<![\w.$])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    if (m[2] || KEYWORDS.has(m[1].toLowerCase())) continue;
    names.push(m[1]);
  }
  return names;
}

/** Every `expr:` of the rules file (one line each). */
function alertExprs(yaml: string): string[] {
  return [...yaml.matchAll(/^\s+expr: (.+)$/gm)].map((m) => m[1]);
}

/** Every PromQL string of the dashboard: its targets' expr and its query variables' label_values(metric, …). */
function dashboardExprs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) dashboardExprs(n, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'expr' && typeof value === 'string') out.push(value);
      else if ((key === 'definition' || key === 'query') && typeof value === 'string') {
        const m = /^label_values\((\w+)\s*,/.exec(value);
        if (m) out.push(m[1]);
      } else dashboardExprs(value, out);
    }
  }
  return out;
}

describe('docs: alert rules and Grafana dashboard name only exposed metrics (issue 31.6)', () => {
  let app: TestApp;
  let exposed: Set<string>;

  before(async () => {
    app = await startApp({
      env: { METRICS_TOKEN: TOKEN, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_opsdocs` },
      workers: { queues: ['customer-sms'] },
    });
    const res = await app.client.get('metrics', { headers: { authorization: `Bearer ${TOKEN}` }, responseType: 'text' });
    expect(res.statusCode).to.equal(200);
    exposed = exposedNames(String(res.body));
  });
  after(async () => {
    await app.close();
  });

  it('reads PromQL as expected (the checker itself)', () => {
    expect(seriesNames('histogram_quantile(0.99, sum by (le) (rate(a_bucket{x="y",q=~"a|b"}[5m]))) > 1')).to.deep.equal(['a_bucket']);
    expect(seriesNames('time() - b_seconds > 30 and on(pid) c / (d > 0) unless absent(e{role="api"})')).to.deep.equal(['b_seconds', 'c', 'd', 'e']);
    expect(seriesNames('sum without (pid) (rate(f_total[$__rate_interval])) > 1e3')).to.deep.equal(['f_total']);
  });

  it('docs/alerts.yml: a rules file by a line scan, every rule complete, every metric exposed', () => {
    const lines = ALERTS.split('\n');
    expect(lines.some((l) => l.includes('\t')), 'no tabs').to.equal(false);
    for (const [i, line] of lines.entries()) {
      if (!line.trim() || line.trimStart().startsWith('#')) continue;
      expect(line, `line ${i + 1}`).to.match(/^( {2})*(- )?[a-z_]+:( .+)?$/);
      const value = /^\s*(?:- )?[a-z_]+: (.+)$/.exec(line)?.[1];
      if (value?.startsWith('"')) expect(value, `line ${i + 1}: one quoted string`).to.match(/^"(?:[^"\\]|\\.)*"$/);
    }
    expect(lines.find((l) => l && !l.startsWith('#'))).to.equal('groups:');
    const rules = ALERTS.split(/^ {6}- alert: /m).slice(1);
    expect(rules.length).to.be.at.least(8);
    for (const rule of rules) {
      const name = rule.split('\n')[0];
      expect(name, 'alert name').to.match(/^[A-Z][A-Za-z]+$/);
      expect(rule, name).to.match(/^ {8}expr: \S/m);
      expect(rule, name).to.match(/^ {10}severity: (warning|critical)$/m);
      expect(rule, name).to.match(/^ {10}summary: "/m);
    }
    // the rules the issue names, by what they read
    const exprs = alertExprs(ALERTS);
    const read = new Set(exprs.flatMap(seriesNames));
    for (const name of [
      'broker_offer_selection_lateness_seconds_bucket',
      'broker_webhook_deliveries_total',
      'broker_queue_oldest_waiting_job_age_seconds',
      'broker_queue_jobs_stalled_total',
      'broker_redis_memory_used_bytes',
      'broker_redis_maxmemory_bytes',
      'broker_process_heartbeat_seconds',
    ]) expect(read.has(name), name).to.equal(true);
    for (const expr of exprs) for (const name of seriesNames(expr)) expect(exposed.has(name), `${name} in ${expr}`).to.equal(true);
  });

  it('docs/operations.md carries the same rules as docs/alerts.yml', () => {
    const block = /```yaml\n(groups:\n[\s\S]*?)```/.exec(OPERATIONS)?.[1];
    expect(block, 'a yaml block starting with groups:').to.be.a('string');
    expect(block).to.equal(ALERTS.slice(ALERTS.indexOf('groups:\n')));
  });

  it('docs/grafana-dashboard.json: valid JSON, panels with targets, every metric exposed', () => {
    const dash = JSON.parse(readFileSync('docs/grafana-dashboard.json', 'utf8')) as { title: string; panels: Array<{ type: string; title: string; targets?: unknown[] }> };
    expect(dash.title).to.be.a('string');
    const graphs = dash.panels.filter((p) => p.type !== 'row');
    expect(graphs.length).to.be.at.least(10);
    for (const p of graphs) expect(p.targets?.length, p.title).to.be.at.least(1);
    const exprs = dashboardExprs(dash);
    expect(exprs.length).to.be.at.least(graphs.length);
    for (const expr of exprs) {
      const names = seriesNames(expr);
      expect(names.length, expr).to.be.at.least(1);
      for (const name of names) expect(exposed.has(name), `${name} in ${expr}`).to.equal(true);
    }
  });
});
