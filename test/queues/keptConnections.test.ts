/**
 * ISS32-14 (issue 32): the process that closes windows keeps its PostgreSQL connections open through quiet spells,
 * and opens them at start, so the first window after a quiet spell (or after start) does not wait for new backends.
 * Background workers and the API keep none (their pools close idle connections after 30 s, as before).
 */
import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../config/index.js';
import { createRuntime, type Runtime } from '../../src/main/runtime.js';
import { QUEUE_NAMES, TIME_CRITICAL_QUEUES } from '../../src/queues/registry.js';
import { keptDbConnections } from '../../workers/index.js';

type Pooled = { client: { pool: { min: number; numUsed(): number; numFree(): number } } };
const poolOf = (rt: Runtime) => (rt.orm.em.getConnection().getKnex() as unknown as Pooled).client.pool;

describe('connections kept by the time-critical worker (issue 32, ISS32-14)', () => {
  it('a worker that closes windows keeps two; a background one none', () => {
    expect(keptDbConnections(TIME_CRITICAL_QUEUES)).to.equal(2);
    expect(keptDbConnections(QUEUE_NAMES), 'one worker for every queue closes windows too').to.equal(2);
    expect(keptDbConnections(QUEUE_NAMES.filter((q) => !TIME_CRITICAL_QUEUES.includes(q)))).to.equal(0);
  });

  it('its runtime opens them at start and its pool keeps them; a runtime without keeps none', async () => {
    const cfg = loadConfig({ ...process.env, PORT: '0' });
    const log = pino({ level: 'silent' });
    const role = `kept-${process.pid}`;
    const kept = await createRuntime(cfg, { log, role, keptDbConnections: 2 });
    const plain = await createRuntime(cfg, { log, role: `${role}-plain` });
    try {
      const open = await plain.orm.em.getConnection().execute<Array<{ n: number }>>(
        `select count(*)::int as n from pg_stat_activity where application_name = ?`,
        [`broker ${role}`],
      );
      expect(open[0].n, 'open from the start, before any statement of its own').to.equal(2);
      expect(poolOf(kept).min, 'not closed when idle').to.equal(2);
      expect(poolOf(kept).numFree()).to.equal(2);
      expect(poolOf(plain).min).to.equal(0);
    } finally {
      await kept.close();
      await plain.close();
    }
  });
});
