/** offer-evaluation: the deadline's selection (D2), and the windows due right after (ISS32-4); offer-expiry: the offer's expiry (D1), background work (TC-2). */
import { DelayedError } from 'bullmq';
import { evaluateOffer, expireOffer, NotYetDue } from '../../src/domain/offers/selection/evaluation.js';
import type { Handlers } from './index.js';

export const evaluationHandlers: Handlers['offer-evaluation'] = {
  evaluate: async (rt, { offerUuid }, job) => {
    try {
      await evaluateOffer(rt, offerUuid, rt.closingRun, { dueOnly: true });
    } catch (err) {
      if (!(err instanceof NotYetDue)) throw err;
      // run before its window's deadline: back to the delayed set until then (BullMQ's own way, not a failure)
      await job.moveToDelayed(err.at.getTime(), job.token);
      throw new DelayedError();
    }
  },
};

export const expiryHandlers: Handlers['offer-expiry'] = {
  expire: async (rt, { offerUuid }) => {
    await expireOffer(rt, offerUuid);
  },
};
