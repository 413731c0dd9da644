/**
 * `npm run demo` (D23): see src/demo/run.ts. Reads the service's own
 * configuration (the same environment `npm start` reads: port, database, the
 * chat and tracking secret) and the demo's knobs, refuses production, runs.
 *
 *   DEMO_MINUTES (3)       how long the market plays
 *   DEMO_SPEED (1)         >1 plays faster (offers, driving, work on site); the service's own timings stay
 *   DEMO_SEED (random)     the same seed plays the same plan
 *   DEMO_SUMMARY_MS (5000) how often the one-line summary is printed
 *   DEMO_LOG               the service's log file (default: a file in the system's temporary directory)
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, type Config } from '../../config/index.js';
import { runDemo } from '../demo/run.js';

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    process.stderr.write(`${name}=${JSON.stringify(raw)} is invalid: a positive number\n`);
    process.exit(1);
  }
  return n;
}

let cfg: Config;
try {
  cfg = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
if (cfg.nodeEnv === 'production') {
  process.stderr.write('npm run demo provisions demo users with public passwords: it does not run with NODE_ENV=production.\n');
  process.exit(1);
}

const code = await runDemo({
  port: cfg.port,
  databaseUrl: cfg.databaseUrl,
  integritySecret: cfg.integritySecret,
  windowMs: cfg.offerResponseWindowMs,
  minutes: positive('DEMO_MINUTES', 3),
  speed: positive('DEMO_SPEED', 1),
  seed: Math.floor(positive('DEMO_SEED', Math.floor(Math.random() * 2 ** 31) + 1)),
  summaryMs: positive('DEMO_SUMMARY_MS', 5000),
  marketPath: fileURLToPath(new URL('../../../config/demo-market.json', import.meta.url)),
  logPath: process.env.DEMO_LOG || join(tmpdir(), `service-offer-demo-${new Date().toISOString().replace(/[:.]/g, '-')}.log`),
});
process.exit(code);
