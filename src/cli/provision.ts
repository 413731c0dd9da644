/**
 * `npm run provision -- FILE`: checks the document and upserts it in one
 * transaction (migrating the database first when needed). Prints the summary;
 * an unreadable file, bad JSON or an invalid document prints every problem to
 * stderr and exits 1 with nothing written. After a write, every running API
 * process is told to forget the credentials it cached (AUTH_CACHE_TTL_MS).
 */
import { ensureDatabase, migrate } from '../db/database.js';
import { createOrm } from '../db/orm.js';
import { configOrExit } from '../main/runtime.js';
import { provision, readDocumentFile, type ProvisionResult } from '../provisioning/index.js';
import { summaryLines } from '../provisioning/report.js';
import { publishAuthInvalidation } from '../auth/cache.js';
import { createRedis } from '../queues/redis.js';

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
  // Every running API process forgets the credentials it verified (a disabled user or a new password takes effect now).
  const redis = createRedis(cfg, { maxRetriesPerRequest: 1 });
  try {
    await publishAuthInvalidation(redis, cfg.queuePrefix);
  } catch (err) {
    process.stderr.write(`warning: running processes not told to forget cached credentials (${(err as Error).message}); they will within AUTH_CACHE_TTL_MS\n`);
  } finally {
    redis.disconnect();
  }
}

try {
  await main(process.argv[2]);
} catch (err) {
  fail([`provisioning failed; nothing was written: ${(err as Error).message}`]);
}
