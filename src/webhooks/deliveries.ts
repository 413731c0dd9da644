/**
 * The names src/domain/offers/** still imports from here, now split between
 * the store of `webhook_delivery`/`webhook_attempt` (src/db/stores/deliveries.ts)
 * and the dispatcher (./dispatch.ts). Only re-exports: new code imports those
 * two modules, and this file goes once src/domain/offers/** does too.
 */
export {
  claimedAtWrite,
  claimPending,
  createDelivery,
  deliveryRow,
  failPending,
  insertDeliveries,
  loadDelivery,
  unfinishedOf,
  type ClaimedDelivery,
  type DeliveryRow,
} from '../db/stores/deliveries.js';
export { offerStateAndUnfinished } from '../db/stores/offers.js';
export { attemptDelivery, failAbandoned, profileEndpoint } from './dispatch.js';
