import { Queue } from 'bullmq';
import { queueKeyPrefix, type Redis, type RedisTarget } from './redis.js';
import { QUEUE_NAMES, jobOptions, type JobName, type JobPayload, type JobSettings, type QueueName } from './registry.js';

/** What a producer may say about a job besides its payload: when (the rest is the registry's). */
export interface EnqueueOptions {
  delay?: number;
  /** the id the producer expects (e.g. the sweeper, which looked it up); must be the registry's */
  jobId?: string;
}

/**
 * Producers for the queues, sharing one connection and one prefix (on a Redis Cluster, one hash tag per queue:
 * `prefixOf`); every job's options come from the registry.
 */
export class Queues {
  private readonly queues = new Map<QueueName, Queue>();

  constructor(
    readonly connection: Redis,
    readonly prefix: string,
    readonly settings: JobSettings,
    /** where Redis is (a cluster's queues carry a hash tag); one Redis when absent */
    readonly target?: RedisTarget,
  ) {
    for (const name of QUEUE_NAMES) {
      this.queues.set(name, new Queue(name, { connection, prefix: this.prefixOf(name) }));
    }
  }

  /** The BullMQ prefix of `name`'s keys: every Worker, QueueEvents or tool on that queue must use it. */
  prefixOf(name: QueueName): string {
    return this.target ? queueKeyPrefix(this.target, this.prefix, name) : this.prefix;
  }

  get(name: QueueName): Queue {
    const q = this.queues.get(name);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  }

  all(): Queue[] {
    return [...this.queues.values()];
  }

  async add<Q extends QueueName, N extends JobName<Q>>(queue: Q, name: N, data: JobPayload<Q, N>, opts: EnqueueOptions = {}): Promise<void> {
    const options = jobOptions(queue, name, data, this.settings);
    if (opts.jobId !== undefined && opts.jobId !== options.jobId) {
      throw new Error(`job ${queue}/${name}: id ${opts.jobId} is not the registry's ${String(options.jobId)}`);
    }
    await this.get(queue).add(name, data, opts.delay === undefined ? options : { ...options, delay: opts.delay });
  }

  /**
   * Several jobs of one name on one queue in one round trip (a pipeline); `delay` per job as in `add`. One job goes
   * as `add` does: a pipeline of one costs more of the caller's CPU than the command alone.
   */
  async addMany<Q extends QueueName, N extends JobName<Q>>(queue: Q, name: N, jobs: ReadonlyArray<{ data: JobPayload<Q, N>; delay?: number }>): Promise<void> {
    if (jobs.length <= 1) {
      if (jobs.length) await this.add(queue, name, jobs[0].data, { delay: jobs[0].delay });
      return;
    }
    await this.get(queue).addBulk(
      jobs.map(({ data, delay }) => {
        const options = jobOptions(queue, name, data, this.settings);
        return { name, data, opts: delay === undefined ? options : { ...options, delay } };
      }),
    );
  }

  /**
   * Withdraws jobs no longer needed (a window another batch closed): removed when waiting or delayed, left alone
   * when a worker holds one (it then finds nothing to do). Sent together, one wait for all.
   */
  async withdraw<Q extends QueueName, N extends JobName<Q>>(queue: Q, name: N, payloads: readonly JobPayload<Q, N>[]): Promise<void> {
    const q = this.get(queue);
    await Promise.all(payloads.map((data) => q.remove(String(jobOptions(queue, name, data, this.settings).jobId))));
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((q) => q.close()));
  }
}
