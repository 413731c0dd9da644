/**
 * `npm start` on a database without API users, outside production: loads
 * config/demo.json and prints the demo credentials (plain lines on stdout).
 */
import type { Writable } from 'node:stream';
import { ApiUser } from '../db/entities/index.js';
import type { Runtime } from '../domain/ports.js';
import { DEMO_PATH } from './document.js';
import { provision, readDocumentFile } from './index.js';
import { demoCredentialLines } from './report.js';

/** Says whether the demo was loaded. A broken demo document is a bug: it throws. */
export async function loadDemoIfEmpty(rt: Runtime, out: Writable = process.stdout): Promise<boolean> {
  if (rt.config.nodeEnv === 'production') return false;
  const em = rt.orm.em.fork();
  if ((await em.count(ApiUser)) > 0) return false;
  const file = await readDocumentFile(DEMO_PATH);
  if (!file.ok) throw new Error(file.problem);
  const result = await provision(em, file.input);
  if (!result.ok) throw new Error(`${DEMO_PATH} is invalid:\n  ${result.problems.join('\n  ')}`);
  rt.log.info({ summary: result.summary }, 'demo data loaded');
  const baseUrl = `http://localhost:${rt.config.port}`;
  out.write(`${demoCredentialLines(result.doc, baseUrl).join('\n')}\n`);
  return true;
}
