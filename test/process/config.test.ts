import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../config/index.js';
import { spawnEntry } from '../helpers/spawn.js';

const problems = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('configuration (STYLE 12)', () => {
  it('has the run contract\'s defaults', () => {
    const cfg = loadConfig({});
    expect(cfg).to.include({
      port: 3000,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/broker',
      redisUrl: 'redis://127.0.0.1:6379',
      offerResponseWindowMs: 30000,
      offerMaxOpenMs: 900000,
      requestTimeoutMs: 60000,
      keepAliveTimeoutMs: 61000,
      webhookTimeoutMs: 10000,
      loginRateLimit: 5,
      loginRateWindowS: 900,
      queuePrefix: 'bull',
      trustProxy: false,
    });
  });

  it('names every bad variable at once', () => {
    const found = problems({ PORT: 'abc', REQUEST_TIMEOUT_MS: '0', REDIS_URL: 'http://x', TRUST_PROXY: 'maybe', PORT_UNUSED: '1' });
    expect(found).to.have.length(4);
    expect(found.join('\n')).to.match(/^PORT="abc"/m).and.match(/^REQUEST_TIMEOUT_MS="0"/m).and.match(/^REDIS_URL=/m).and.match(/^TRUST_PROXY=/m);
  });

  it('reads WORKER_QUEUES into queue names (every queue when unset) and refuses an unknown one; WORKER_NICE is 0–19', () => {
    expect(loadConfig({}).workerQueues).to.deep.equal(['offer-distribution', 'offer-evaluation', 'offer-expiry', 'webhook-dispatch', 'state-notification', 'customer-sms']);
    expect(loadConfig({ WORKER_QUEUES: ' offer-evaluation, webhook-dispatch,offer-evaluation ' }).workerQueues).to.deep.equal(['offer-evaluation', 'webhook-dispatch']);
    expect(problems({ WORKER_QUEUES: 'offer-evaluation,offers' })).to.deep.equal([
      'WORKER_QUEUES names unknown queues: offers (known: offer-distribution, offer-evaluation, offer-expiry, webhook-dispatch, state-notification, customer-sms)',
    ]);
    expect(loadConfig({}).workerNice).to.equal(0);
    expect(problems({ WORKER_NICE: '20' })).to.have.length(1);
  });

  it('refuses a port out of range', () => {
    expect(problems({ PORT: '70000' })).to.deep.equal(['PORT="70000" is invalid: must be <= 65535']);
  });

  it('never echoes the password of a bad URL, and wants secrets of 32 characters or more', () => {
    const found = problems({ DATABASE_URL: 'postgresql+psycopg://app:s3cret@db:5432/broker', JWT_SECRET: 'short' });
    expect(found.join('\n')).to.not.include('s3cret');
    expect(found.join('\n')).to.include('postgresql+psycopg://app:***@db:5432/broker');
    expect(found).to.include('JWT_SECRET is invalid: must match pattern "^.{32,}$"');
  });

  it('requires the secrets in production', () => {
    const found = problems({ NODE_ENV: 'production' });
    expect(found).to.have.members([
      'JWT_SECRET is required when NODE_ENV is production',
      'INTEGRITY_SECRET is required when NODE_ENV is production',
      'PUBLIC_ORIGIN is required when NODE_ENV is production',
      'SMS_PROVIDER=outbox is refused when NODE_ENV is production (it keeps tracking codes in clear); set http or twilio',
    ]);
  });

  it('stops the web process at start with exit 1 and a message naming the variable', async () => {
    const p = spawnEntry('dist/src/main/web.js', { PORT: 'abc' });
    const { code } = await p.exited;
    expect(code).to.equal(1);
    expect(p.stderr()).to.equal('Invalid configuration:\n  PORT="abc" is invalid: must be integer\n');
    expect(p.stdout()).to.equal('');
  });

  it('is declared once: docs/configuration.md\'s table names exactly the variables the loader reads', () => {
    const doc = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
    const named = new Set(rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])));
    expect([...CONFIG_VARIABLES].filter((name) => !named.has(name)), 'variables missing from docs/configuration.md').to.deep.equal([]);
    expect([...named].filter((name) => !CONFIG_VARIABLES.includes(name)), 'docs/configuration.md rows naming no variable').to.deep.equal([]);
  });
});
