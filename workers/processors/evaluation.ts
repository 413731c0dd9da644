/** offer-evaluation: the deadline's selection (D2), and the windows due right after (ISS32-4); offer-expiry: the offer's expiry (D1), background work (TC-2). */
import { evaluateOffer, expireOffer } from '../../src/domain/offers/selection/evaluation.js';
import type { Handlers } from './index.js';

export const evaluationHandlers: Handlers['offer-evaluation'] = {
  evaluate: async (rt, { offerUuid }) => {
    await evaluateOffer(rt, offerUuid, rt.closingRun);
  },
};

export const expiryHandlers: Handlers['offer-expiry'] = {
  expire: async (rt, { offerUuid }) => {
    await expireOffer(rt, offerUuid);
  },
};
