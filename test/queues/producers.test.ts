/**
 * Issue 32 (ISS32-1): the queue producers have a Redis connection of their own. BullMQ defines its Lua scripts on
 * the connection it is given and ioredis copies every defined script onto each pipeline it makes; the runtime's
 * connection auto-pipelines (a pipeline per tick: the limits, the quota, the live events), so it must not carry
 * BullMQ's scripts. The producers' connection fails fast as the runtime's does (D21) and closes with the runtime.
 */
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { startApp } from '../helpers/harness.js';
import { jobId } from '../../src/queues/registry.js';
import { randomUUID } from 'node:crypto';
import { waitFor } from '../helpers/wait.js';

const scriptsOf = (r: unknown) => Object.keys((r as { scriptsSet: Record<string, unknown> }).scriptsSet);

describe('the queue producers’ Redis connection (issue 32, ISS32-1)', () => {
  it('is not the runtime’s: it carries BullMQ’s scripts and sends each command as it comes, the runtime’s carries none and auto-pipelines', async () => {
    const app = await startApp();
    const producers = app.rt.queues.connection as Redis;
    const uuid = randomUUID();
    try {
      expect(producers).to.not.equal(app.rt.redis);
      // a job added through the producers defines BullMQ's scripts there, and only there
      await app.rt.queues.add('offer-evaluation', 'evaluate', { offerUuid: uuid }, { delay: 60_000 });
      expect(scriptsOf(producers).some((s) => s.startsWith('addDelayedJob'))).to.equal(true);
      expect(scriptsOf(app.rt.redis).filter((s) => /Job|Queue/.test(s)), 'no BullMQ script on the runtime’s connection').to.deep.equal([]);
      expect(producers.options.enableAutoPipelining).to.equal(false);
      expect(app.rt.redis.options.enableAutoPipelining).to.equal(true);
      // D21: it fails fast like the runtime's (no offline queue, the same command timeout)
      expect(producers.options.enableOfflineQueue).to.equal(false);
      expect(producers.options.commandTimeout).to.equal((app.rt.redis as Redis).options.commandTimeout);
    } finally {
      await app.rt.queues.get('offer-evaluation').remove(jobId('evaluate', uuid));
      await app.close();
    }
    await waitFor(() => producers.status === 'end', { what: 'the producers’ connection closed with the runtime' });
  });
});
