import type { Runtime } from '../main/runtime.js';

/** Placeholder until provisioning lands: loads config/demo.json when no API user exists. */
export async function loadDemoIfEmpty(rt: Runtime): Promise<void> {
  rt.log.info('demo provisioning not available yet');
}
