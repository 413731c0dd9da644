/** The `worker` role: the queue processors. */
import { warnUnsafeDefaults } from '../src/main/banner.js';
import { configOrExit, createRuntime } from '../src/main/runtime.js';
import { onShutdown } from '../src/main/shutdown.js';
import { startWorkers } from './index.js';

const cfg = configOrExit();
warnUnsafeDefaults(cfg, { demo: false });
const rt = await createRuntime(cfg);
const group = await startWorkers(rt);
rt.log.info({ queues: group.workers.map((w) => w.name) }, 'workers running');
onShutdown(rt.log, [
  ['workers', () => group.close()],
  ['runtime', () => rt.close()],
], rt.config.shutdownTimeoutMs);
