/**
 * The queue names (kebab-case, STYLE 2), here so that the configuration can
 * check WORKER_QUEUES without importing src/; src/queues/registry.ts types
 * each queue's jobs and fails to compile when the two lists differ.
 */
export const QUEUE_NAMES = ['offer-distribution', 'offer-evaluation', 'offer-expiry', 'webhook-dispatch', 'state-notification', 'customer-sms'] as const;

/**
 * The queues that keep the 30-second promise: the selection at the deadline and the acceptance notification (6.1).
 * `npm start` runs them in a process of their own; every other queue is background work, which yields to them
 * (issue 32, docs/decisions.md TC-1…).
 */
export const TIME_CRITICAL_QUEUES: readonly QueueName[] = ['offer-evaluation', 'webhook-dispatch'];

export type QueueName = (typeof QUEUE_NAMES)[number];
