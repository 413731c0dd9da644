/** 'offer-distribution/distribute': push a new offer to the centrals and technicians that can serve it (D8). */
import { distributeOffer } from '../../src/domain/distribution/distribute.js';
import type { JobRegistry } from '../../src/queues/registry.js';
import type { Handler } from './index.js';

export const distribute: Handler<JobRegistry['offer-distribution']['distribute']> = async (rt, data) => {
  await distributeOffer(rt, data.offerUuid);
};
