/** webhook-dispatch: the acceptance notification (spec 6.1), one attempt, never two (decisions D5). */
import { dispatchAcceptance } from '../../src/domain/offers/selection/acceptanceNotification.js';
import type { Handlers } from './index.js';

export const webhookDispatchHandlers: Handlers['webhook-dispatch'] = {
  deliver: async (rt, { deliveryId }) => {
    await dispatchAcceptance(rt, deliveryId);
  },
};
