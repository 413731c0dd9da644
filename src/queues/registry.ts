/**
 * The one typed job registry (STYLE 2): queue name → job name → payload, and
 * every job's options (id, attempts, backoff) in one table, like Immich's
 * getJobOptions: producers give a payload and at most a delay, never options
 * of their own, so two producers of one job cannot drift.
 * Payloads carry ids, never entities; processors reload the state (STYLE 4).
 */
import type { JobsOptions } from 'bullmq';
import { QUEUE_NAMES as CONFIG_QUEUE_NAMES, TIME_CRITICAL_QUEUES, type QueueName as ConfigQueueName } from '../../config/queues.js';

export { TIME_CRITICAL_QUEUES };

export interface JobRegistry {
  'offer-distribution': {
    distribute: { offerUuid: string };
  };
  'offer-evaluation': {
    /** at the offer's deadline: rank the responses and select one (D2) */
    evaluate: { offerUuid: string };
  };
  'offer-expiry': {
    /** OFFER_MAX_OPEN_MS after creation: SIN_RESPUESTA → EXPIRADA (D1); background work since issue 32 (TC-2) */
    expire: { offerUuid: string };
  };
  'webhook-dispatch': {
    /** the acceptance notification (spec 6.1): one attempt, never two */
    deliver: { deliveryId: string };
  };
  'state-notification': {
    /** state changes and novelties (D12): retried with backoff */
    notify: { deliveryId: string };
    /** one outbox sweep (the former repeatable sweep; the reconcile runs the sweeper now, src/domain/outbox/reconcile.ts) */
    sweep: Record<string, never>;
    /** every six hours: the delivery log's retention (D18, DELIVERY_RETENTION_DAYS) */
    prune: Record<string, never>;
  };
  'customer-sms': {
    /** a tracking code by SMS (D16): retried a bounded number of times, every outcome on its sms_message row */
    send: { smsId: string };
  };
}

export type QueueName = keyof JobRegistry;
export type JobName<Q extends QueueName> = keyof JobRegistry[Q] & string;
export type JobPayload<Q extends QueueName, N extends JobName<Q>> = JobRegistry[Q][N];

export const QUEUE_NAMES: readonly QueueName[] = CONFIG_QUEUE_NAMES;

/** The configuration's queue names and the registry's queues are the same set (a compile error otherwise). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const SAME_QUEUES: Same<QueueName, ConfigQueueName> = true;
void SAME_QUEUES;

/** BullMQ job ids may not contain ':'; ids derive from the domain id so adding twice is harmless (STYLE 5). */
export function jobId(name: string, domainId: string): string {
  return `${name}-${domainId}`.replaceAll(':', '_');
}

/** The configuration some jobs' options come from (NOTIFICATION_ATTEMPTS, NOTIFICATION_BACKOFF_MS). */
export interface JobSettings {
  notificationAttempts: number;
  notificationBackoffMs: number;
  smsAttempts: number;
}

type OptionsTable = {
  readonly [Q in QueueName]: { readonly [N in JobName<Q>]: (payload: JobPayload<Q, N>, settings: JobSettings) => JobsOptions };
};

/** Evaluation and expiry are idempotent (they re-check the state under a lock), so they may retry. */
const RETRIED = { attempts: 5, backoff: { type: 'exponential', delay: 200 } } as const;

/** Every job's options, by queue and name. */
const JOB_OPTIONS: OptionsTable = {
  'offer-distribution': {
    /** LIFO: under a backlog the newest offers, with the most window left, go first (DIST-1, issue 32) */
    distribute: ({ offerUuid }) => ({ jobId: jobId('distribute', offerUuid), lifo: true }),
  },
  'offer-evaluation': {
    evaluate: ({ offerUuid }) => ({ ...RETRIED, jobId: jobId('evaluate', offerUuid) }),
  },
  'offer-expiry': {
    expire: ({ offerUuid }) => ({ ...RETRIED, jobId: jobId('expire', offerUuid) }),
  },
  'webhook-dispatch': {
    /** spec 6.1: one attempt, never two */
    deliver: ({ deliveryId }) => ({ jobId: jobId('deliver', deliveryId), attempts: 1 }),
  },
  'state-notification': {
    notify: ({ deliveryId }, s) => ({
      jobId: jobId('notify', deliveryId),
      attempts: s.notificationAttempts,
      backoff: { type: 'exponential', delay: s.notificationBackoffMs },
    }),
    /** a sweep asked for by hand (the reconcile runs the sweeper itself) */
    sweep: () => ({ removeOnComplete: 100, removeOnFail: 100 }),
    prune: () => ({ removeOnComplete: 20, removeOnFail: 20 }),
  },
  'customer-sms': {
    send: ({ smsId }, s) => ({ jobId: jobId('sms', smsId), attempts: s.smsAttempts, backoff: { type: 'exponential', delay: 1000 } }),
  },
};

/** Finished jobs kept for inspection (Bull Board), unless the job's entry says otherwise. */
const KEPT = { removeOnComplete: 1000, removeOnFail: 5000 } as const;

/** The options of a job (id, attempts, backoff, retention), the only place they are written. */
export function jobOptions<Q extends QueueName, N extends JobName<Q>>(
  queue: Q,
  name: N,
  payload: JobPayload<Q, N>,
  settings: JobSettings,
): JobsOptions {
  const options = JOB_OPTIONS[queue][name] as (payload: JobPayload<Q, N>, settings: JobSettings) => JobsOptions;
  return { ...KEPT, ...options(payload, settings) };
}

/** Every job name of every queue (the keys of the options table), checked at worker boot against the handlers. */
export const JOB_NAMES: { readonly [Q in QueueName]: readonly JobName<Q>[] } = {
  'offer-distribution': Object.keys(JOB_OPTIONS['offer-distribution']) as JobName<'offer-distribution'>[],
  'offer-evaluation': Object.keys(JOB_OPTIONS['offer-evaluation']) as JobName<'offer-evaluation'>[],
  'offer-expiry': Object.keys(JOB_OPTIONS['offer-expiry']) as JobName<'offer-expiry'>[],
  'webhook-dispatch': Object.keys(JOB_OPTIONS['webhook-dispatch']) as JobName<'webhook-dispatch'>[],
  'state-notification': Object.keys(JOB_OPTIONS['state-notification']) as JobName<'state-notification'>[],
  'customer-sms': Object.keys(JOB_OPTIONS['customer-sms']) as JobName<'customer-sms'>[],
};
