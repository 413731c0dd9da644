/**
 * `npm run provision -- FILE`: checks the document and upserts it in one
 * transaction (migrating the database first when needed). Prints the summary;
 * an unreadable file, bad JSON or an invalid document prints every problem to
 * stderr and exits 1 with nothing written.
 */
import { ensureDatabase, migrate } from '../db/database.js';
import { createOrm } from '../db/orm.js';
import { configOrExit } from '../main/runtime.js';
import { provision, readDocumentFile, type ProvisionResult } from '../provisioning/index.js';
import { summaryLines } from '../provisioning/report.js';

function fail(lines: string[]): void {
  process.stderr.write(`${lines.join('\n')}\n`);
  process.exitCode = 1;
}

async function main(path: string | undefined): Promise<void> {
  if (!path) return fail(['usage: npm run provision -- path/to/file.json']);
  const file = await readDocumentFile(path);
  if (!file.ok) return fail([file.problem]);
  const cfg = configOrExit();
  await ensureDatabase(cfg.databaseUrl);
  const orm = await createOrm(cfg.databaseUrl);
  let result: ProvisionResult;
  try {
    await migrate(orm);
    result = await provision(orm.em, file.input);
  } finally {
    await orm.close(true);
  }
  if (!result.ok) {
    const n = result.problems.length;
    return fail([`${path} is invalid (${n} problem${n === 1 ? '' : 's'}); nothing was written:`, ...result.problems.map((p) => `  ${p}`)]);
  }
  process.stdout.write(`provisioned ${path}\n${summaryLines(result.summary).join('\n')}\n`);
}

try {
  await main(process.argv[2]);
} catch (err) {
  fail([`provisioning failed; nothing was written: ${(err as Error).message}`]);
}
