/**
 * Processors, typed from the job registry: queue → job name → handler.
 * Each reloads what it needs by id in its own ORM context and skips quietly
 * when the row is gone or already past that state (STYLE 4, 8).
 */
import type { Job } from 'bullmq';
import type { Runtime } from '../../src/domain/ports.js';
import type { JobRegistry, QueueName } from '../../src/queues/registry.js';
import { distribute } from './distribution.js';
import * as stateNotifications from './stateNotifications.js';
import { evaluationHandlers, expiryHandlers } from './evaluation.js';
import { webhookDispatchHandlers } from './webhookDispatch.js';
import { customerSmsHandlers } from './customerSms.js';

export type Handler<P> = (rt: Runtime, data: P, job: Job) => Promise<void>;

export type Handlers = {
  [Q in QueueName]: { [N in keyof JobRegistry[Q]]: Handler<JobRegistry[Q][N]> };
};

export const handlers: Handlers = {
  'offer-distribution': { distribute },
  'offer-evaluation': evaluationHandlers,
  'offer-expiry': expiryHandlers,
  'webhook-dispatch': webhookDispatchHandlers,
  'state-notification': { notify: stateNotifications.notify, sweep: stateNotifications.sweep, prune: stateNotifications.prune },
  'customer-sms': customerSmsHandlers,
};
