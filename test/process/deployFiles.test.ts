/**
 * The Procfile and docker-compose.yml, read as text (no Docker engine here):
 * the compose roles run what the Procfile runs (built files, no build at
 * start; the workers split as `npm start` splits them), and PostgreSQL and
 * Redis are never published beyond 127.0.0.1 nor
 * left without a password (issue 8, items 11 and 12).
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../../config/index.js';
import { QUEUE_NAMES } from '../../src/queues/registry.js';
import { ROOT } from '../helpers/spawn.js';

describe('Procfile and docker-compose.yml', () => {
  let procfile: Record<string, string>;
  let compose: string;

  before(async () => {
    procfile = Object.fromEntries(
      (await readFile(join(ROOT, 'Procfile'), 'utf8'))
        .split('\n')
        .filter((l) => l.includes(': '))
        .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
    );
    compose = await readFile(join(ROOT, 'docker-compose.yml'), 'utf8');
  });

  /** The lines of one service's block. */
  const service = (name: string): string => {
    const start = compose.indexOf(`\n  ${name}:\n`);
    expect(start, name).to.be.greaterThan(-1);
    const rest = compose.slice(start + 1);
    const end = rest.slice(1).search(/\n {2}[a-z]|\n[a-z]/);
    return end < 0 ? rest : rest.slice(0, end + 1);
  };

  it('runs the same built entry points as the Procfile for web and worker', () => {
    for (const role of ['web', 'worker']) {
      // node's options, then the script: the time-critical worker keeps its compiled code (ISS32-6)
      const [, options, script] = procfile[role].match(/node ((?:--\S+ )*)(dist\/\S+\.js)$/) ?? [];
      expect(script, `Procfile ${role}`).to.be.a('string');
      const args = [...options.split(' ').filter(Boolean), script].map((a) => `"${a}"`).join(', ');
      expect(service(role)).to.include(`command: ["node", ${args}]`);
    }
    expect(procfile.worker).to.include('--no-flush-bytecode');
    expect(procfile.release).to.match(/node dist\/src\/cli\/migrate\.js$/);
    // the build happens once, in `npm ci` (prepare), then migrations
    expect(service('migrate')).to.include('npm ci --include=dev && npm run migrate');
  });

  it('splits the workers as npm start does: every queue taken by exactly one worker service, the background one niced', () => {
    const queuesOf = (name: string) => service(name).match(/WORKER_QUEUES: "([^"]*)"/)?.[1].split(',') ?? [];
    expect(service('worker-background')).to.include('command: ["node", "dist/workers/main.js"]');
    expect(queuesOf('worker')).to.deep.equal(['offer-evaluation', 'webhook-dispatch']);
    expect([...queuesOf('worker'), ...queuesOf('worker-background')].sort()).to.deep.equal([...QUEUE_NAMES].sort());
    expect(service('worker-background')).to.include('WORKER_NICE: "10"');
    expect(loadConfig({ WORKER_QUEUES: queuesOf('worker-background').join(',') }).workerQueues).to.have.length(4);
  });

  it('publishes PostgreSQL and Redis on 127.0.0.1 only, each with a password', () => {
    for (const [name, port] of [['postgres', 5432], ['redis', 6379]] as const) {
      const ports = service(name).match(/ports: (.*)/)?.[1] ?? '[]';
      expect(ports, name).to.equal(`["127.0.0.1:${port}:${port}"]`);
    }
    expect(service('postgres')).to.not.match(/^\s*POSTGRES_HOST_AUTH_METHOD/m);
    expect(service('postgres')).to.include('POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?');
    expect(service('redis')).to.include('"--requirepass", "${REDIS_PASSWORD:?');
    expect(service('migrate')).to.include('redis://:${REDIS_PASSWORD').and.include('postgres://postgres:${POSTGRES_PASSWORD');
  });
  it('gives the roles an environment production accepts: every variable production requires is asked for (D24)', () => {
    const block = service('migrate').split('environment: &appenv')[1].split('depends_on:')[0];
    const sample: Record<string, string> = {
      POSTGRES_PASSWORD: 'pw0123456789',
      REDIS_PASSWORD: 'pw0123456789',
      JWT_SECRET: 'j'.repeat(40),
      INTEGRITY_SECRET: 'i'.repeat(40),
      PUBLIC_ORIGIN: 'https://seguimiento.example.com',
      SMS_PROVIDER: 'http',
      SMS_HTTP_URL: 'https://sms.example.com/send',
    };
    const env: Record<string, string> = {};
    const asked: string[] = [];
    for (const line of block.split('\n')) {
      const m = /^\s+([A-Z_]+): (.*)$/.exec(line);
      if (!m) continue;
      env[m[1]] = m[2].replace(/\$\{([A-Z_]+)(:\?[^}]*|:-)\}/g, (_all, name: string, how: string) => {
        if (how.startsWith(':?')) asked.push(name);
        return sample[name] ?? '';
      });
    }
    expect(asked).to.include.members(['JWT_SECRET', 'INTEGRITY_SECRET', 'PUBLIC_ORIGIN', 'SMS_PROVIDER']);
    expect(env.NODE_ENV).to.equal('production');
    expect(() => loadConfig(env)).to.not.throw();
  });
});
