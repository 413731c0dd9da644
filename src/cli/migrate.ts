/** `npm run migrate`: applies pending migrations; a no-op when none. */
import { ensureDatabase, migrate } from '../db/database.js';
import { createOrm } from '../db/orm.js';
import { configOrExit } from '../main/runtime.js';

const cfg = configOrExit();
await ensureDatabase(cfg.databaseUrl);
const orm = await createOrm(cfg.databaseUrl);
try {
  const applied = await migrate(orm);
  process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'no pending migrations\n');
} finally {
  await orm.close(true);
}
