/**
 * The one typed job registry (STYLE 2): queue name → job name → payload.
 * Payloads carry ids, never entities; processors reload the state (STYLE 4).
 */
export interface JobRegistry {
  'offer-distribution': {
    distribute: { offerUuid: string };
  };
  'offer-evaluation': {
    /** at the offer's deadline: rank the responses and select one (D2) */
    evaluate: { offerUuid: string };
    /** OFFER_MAX_OPEN_MS after creation: SIN_RESPUESTA → EXPIRADA (D1) */
    expire: { offerUuid: string };
  };
  'webhook-dispatch': {
    /** the acceptance notification (spec 6.1): one attempt, never two */
    deliver: { deliveryId: string };
  };
  'state-notification': {
    /** state changes and novelties (D12): retried with backoff */
    notify: { deliveryId: string };
    /** every SWEEP_INTERVAL_MS: re-enqueue what a lost enqueue left behind (outbox sweeper) */
    sweep: Record<string, never>;
  };
}

export type QueueName = keyof JobRegistry;
export type JobName<Q extends QueueName> = keyof JobRegistry[Q] & string;
export type JobPayload<Q extends QueueName, N extends JobName<Q>> = JobRegistry[Q][N];

export const QUEUE_NAMES: readonly QueueName[] = [
  'offer-distribution',
  'offer-evaluation',
  'webhook-dispatch',
  'state-notification',
];

/** Every job name of every queue, checked at worker boot against the handlers. */
export const JOB_NAMES: { readonly [Q in QueueName]: readonly JobName<Q>[] } = {
  'offer-distribution': ['distribute'],
  'offer-evaluation': ['evaluate', 'expire'],
  'webhook-dispatch': ['deliver'],
  'state-notification': ['notify', 'sweep'],
};

/** BullMQ job ids may not contain ':'; ids derive from the domain id so adding twice is harmless (STYLE 5). */
export function jobId(name: string, domainId: string): string {
  return `${name}-${domainId}`.replaceAll(':', '_');
}
