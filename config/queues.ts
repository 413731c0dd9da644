/**
 * The queue names (kebab-case, STYLE 2), here so that the configuration can
 * check WORKER_QUEUES without importing src/; src/queues/registry.ts types
 * each queue's jobs and fails to compile when the two lists differ.
 */
export const QUEUE_NAMES = ['offer-distribution', 'offer-evaluation', 'webhook-dispatch', 'state-notification', 'customer-sms'] as const;

export type QueueName = (typeof QUEUE_NAMES)[number];
