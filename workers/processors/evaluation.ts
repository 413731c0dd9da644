/** offer-evaluation: the deadline's selection and the offer's expiry (decisions D1, D2). */
import { evaluateOffer, expireOffer } from '../../src/domain/offers/selection/evaluation.js';
import type { Handlers } from './index.js';

export const evaluationHandlers: Handlers['offer-evaluation'] = {
  evaluate: async (rt, { offerUuid }) => {
    await evaluateOffer(rt, offerUuid);
  },
  expire: async (rt, { offerUuid }) => {
    await expireOffer(rt, offerUuid);
  },
};
