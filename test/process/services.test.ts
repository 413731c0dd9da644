import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { checkPostgres, checkRedis } from '../helpers/services.js';
import { freePort } from '../helpers/ports.js';

const failure = (p: Promise<void>) =>
  p.then(
    () => null,
    (e: unknown) => e as Error,
  );

describe('test run pre-flight checks', () => {
  it('name PostgreSQL and what to do when it cannot be reached', async () => {
    const port = await freePort();
    const err = await failure(checkPostgres(`postgres://postgres@127.0.0.1:${port}/broker`));
    expect(err?.message).to.match(
      new RegExp(`^PostgreSQL is not reachable at 127\\.0\\.0\\.1:${port} \\(.+\\)\\. Start it, or set TEST_DATABASE_URL\\.$`),
    );
  });

  it('name Redis and what to do when it cannot be reached', async () => {
    const port = await freePort();
    const err = await failure(checkRedis(`redis://127.0.0.1:${port}`));
    expect(err?.message).to.match(
      new RegExp(`^Redis is not reachable at 127\\.0\\.0\\.1:${port} \\(.+\\)\\. Start it, or set TEST_REDIS_URL\\.$`),
    );
  });

  it('pass when both answer', async () => {
    const errors = await Promise.all([failure(checkPostgres(process.env.DATABASE_URL!)), failure(checkRedis(process.env.REDIS_URL!))]);
    expect(errors).to.deep.equal([null, null]);
  });

  it('make the test command fail with that message before any test runs', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['node_modules/mocha/bin/mocha.js', '--no-config', '--require', 'dist/test/setup.js', 'dist/test/process/services.test.js'], {
      env: { ...process.env, TEST_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`, DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).to.not.equal(0);
    expect(output).to.include(`PostgreSQL is not reachable at 127.0.0.1:${port}`);
    expect(output).to.not.match(/passing/);
  });
});
