/**
 * The run contract on a built checkout (issue 8, item 11): the npm scripts of
 * the roles start without building, side by side, two of each, and leave
 * dist/ as it was; two migrations at once both succeed (advisory lock).
 */
import { expect } from 'chai';
import got from 'got';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { dropDatabase } from '../../src/db/database.js';
import { freePort } from '../helpers/ports.js';
import { killGroup, ROOT, spawnNpm, type Spawned } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait.js';

/** Every file under dir with its modification time and size. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const s = await stat(path);
    out[path] = `${s.mtimeMs} ${s.size}`;
  }
  return out;
}

async function stopAll(procs: Spawned[]): Promise<void> {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) killGroup(p, 'SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
}

describe('run contract: roles side by side, migrations at once', function () {
  this.timeout(180000);
  const procs: Spawned[] = [];
  const fresh = new URL(process.env.DATABASE_URL!);
  fresh.pathname = `${fresh.pathname}_migrate_race`;

  after(async () => {
    for (const p of procs) killGroup(p, 'SIGKILL');
    await dropDatabase(fresh.toString());
  });

  it('two `npm run start:api` and two `npm run start:worker` come up side by side without touching dist/', async () => {
    const dist = join(ROOT, 'dist');
    const before = await snapshot(dist);
    const prefix = `${process.env.QUEUE_PREFIX}_roles`;
    const [port1, port2] = [await freePort(), await freePort()];
    const api = [
      // as a first try-out runs it: no NODE_ENV, no secrets (the banner says so)
      spawnNpm(['run', 'start:api'], { PORT: String(port1), QUEUE_PREFIX: prefix, LOG_LEVEL: 'info', NODE_ENV: undefined, JWT_SECRET: undefined, INTEGRITY_SECRET: undefined }),
      // as production runs it (no banner)
      spawnNpm(['run', 'start:api'], {
        PORT: String(port2),
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'info',
        NODE_ENV: 'production',
        JWT_SECRET: 'a-production-secret-of-32-characters-or-more',
        INTEGRITY_SECRET: 'another-production-secret-of-32-characters',
        PUBLIC_ORIGIN: 'https://seguimiento.example.com',
        SMS_PROVIDER: 'http',
        SMS_HTTP_URL: 'https://sms.example.com/send',
      }),
    ];
    const workers = [0, 1].map(() => spawnNpm(['run', 'start:worker'], { QUEUE_PREFIX: prefix, LOG_LEVEL: 'info' }));
    procs.push(...api, ...workers);

    const healthy = async (port: number) =>
      (await got(`http://127.0.0.1:${port}/health`, { throwHttpErrors: false, retry: { limit: 0 } }).catch(() => null))?.statusCode === 200;
    await waitFor(
      async () => {
        const early = procs.find((p) => p.child.exitCode !== null);
        if (early) throw new Error(`exited early: ${early.stderr()}`);
        return (await healthy(port1)) && (await healthy(port2)) && workers.every((w) => w.stdout().includes('"msg":"workers running"'));
      },
      { timeoutMs: 90000, intervalMs: 100, what: 'both APIs healthy and both workers running' },
    );

    expect(await snapshot(dist)).to.deep.equal(before);
    for (const p of procs) expect(p.stdout()).to.not.match(/^> tsc/m);
    expect(api[0].stderr()).to.include('NOT FOR PRODUCTION').and.include('JWT_SECRET is not set').and.not.include('demo data');
    expect(api[1].stderr()).to.not.include('NOT FOR PRODUCTION');

    await stopAll(procs);
    expect(await snapshot(dist)).to.deep.equal(before);
  });

  it('two `npm run migrate` at once on a new database: both succeed, one applies, the other finds nothing pending, dist/ untouched', async () => {
    const before = await snapshot(join(ROOT, 'dist'));
    const env = { DATABASE_URL: fresh.toString() };
    const runs = [spawnNpm(['run', 'migrate'], env), spawnNpm(['run', 'migrate'], env)];
    procs.push(...runs);
    const exits = await Promise.all(runs.map((r) => r.exited));
    // no build either: migrating beside running roles leaves their files alone
    expect(await snapshot(join(ROOT, 'dist'))).to.deep.equal(before);
    expect(exits.map((e) => e.code), runs.map((r) => r.stderr()).join('\n')).to.deep.equal([0, 0]);
    const said = runs.map((r) => (r.stdout().match(/^(applied: .+|no pending migrations)$/m) ?? [''])[0]).sort();
    expect(said[0]).to.match(/^applied: Migration/);
    expect(said[1]).to.equal('no pending migrations');

    const client = new pg.Client({ connectionString: fresh.toString() });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; n: number }>('select name, count(*)::int as n from mikro_orm_migrations group by name');
      expect(rows.map((r) => r.n).every((n) => n === 1)).to.equal(true);
      expect(rows.map((r) => r.name).sort().join(', ')).to.equal(said[0].replace(/^applied: /, '').split(', ').sort().join(', '));
    } finally {
      await client.end();
    }
  });
});
