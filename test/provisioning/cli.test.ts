import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../config/index.js';
import { ApiUser } from '../../src/db/entities/index.js';
import { createOrm, type MikroORM } from '../../src/db/orm.js';
import { resetDb } from '../helpers/db.js';
import { demoDocument, EMPTY_COUNTS, rowCounts } from '../helpers/provisioning.js';

const CLI = fileURLToPath(new URL('../../src/cli/provision.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node dist/src/cli/provision.js ...args` against this test run's database. */
function runCli(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run provision (CLI)', () => {
  let orm: MikroORM;
  let dir: string;

  before(async () => {
    orm = await createOrm(loadConfig(process.env).databaseUrl);
    dir = await mkdtemp(join(tmpdir(), 'provision-'));
  });
  after(async () => {
    await orm.close(true);
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => resetDb(orm));

  it('provisions a valid file, prints the summary and exits 0', async () => {
    const file = join(dir, 'demo.json');
    await writeFile(file, JSON.stringify(demoDocument()));
    const run = await runCli(file);
    expect(run.stderr).to.equal('');
    expect(run.code).to.equal(0);
    expect(run.stdout).to.match(/^provisioned .*demo\.json\n/);
    expect(run.stdout).to.match(/\napiUsers +2 +0 +0\n/);
    expect(run.stdout).to.match(/\ngazetteer +34 +0 +0\n/);
    expect(await orm.em.fork().count(ApiUser)).to.equal(2);
  });

  it('an invalid file: every problem with its path on stderr, exit 1, nothing written', async () => {
    const schemaDoc = demoDocument();
    (schemaDoc.apiUsers![0] as { status: string }).status = 'ON';
    const refDoc = demoDocument();
    refDoc.technicians![0].central = '404';
    refDoc.centrals![0].serviceTypes = [1, 77];
    const [schemaFile, refFile] = [join(dir, 'schema.json'), join(dir, 'refs.json')];
    await writeFile(schemaFile, JSON.stringify(schemaDoc));
    await writeFile(refFile, JSON.stringify(refDoc));
    const [schemaRun, refRun] = await Promise.all([runCli(schemaFile), runCli(refFile)]);

    expect(schemaRun.code).to.equal(1);
    expect(schemaRun.stdout).to.equal('');
    expect(schemaRun.stderr).to.contain('schema.json is invalid (1 problem); nothing was written:\n');
    expect(schemaRun.stderr).to.contain('  /apiUsers/0/status: must be equal to one of the allowed values\n');
    expect(refRun.code).to.equal(1);
    expect(refRun.stderr).to.contain('refs.json is invalid (2 problems); nothing was written:\n');
    expect(refRun.stderr).to.contain('  /centrals/0/serviceTypes/1: no service type with id 77\n');
    expect(refRun.stderr).to.contain("  /technicians/0/central: no central with nit '404'\n");
    expect(await rowCounts(orm.em.fork())).to.deep.equal(EMPTY_COUNTS);
  });

  it('a missing file, bad JSON or no argument: a clear message and exit 1', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, '{"apiUsers": [');
    const [missing, broken, none] = await Promise.all([runCli(join(dir, 'nope.json')), runCli(file), runCli()]);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/^cannot read .*nope\.json: ENOENT/);
    expect(broken.code).to.equal(1);
    expect(broken.stderr).to.match(/broken\.json is not valid JSON: /);
    expect(none.code).to.equal(1);
    expect(none.stderr).to.equal('usage: npm run provision -- path/to/file.json\n');
  });
});
