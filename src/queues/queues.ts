import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE_NAMES, type JobName, type JobPayload, type QueueName } from './registry.js';

/** Producers for the four queues, sharing one connection and one prefix. */
export class Queues {
  private readonly queues = new Map<QueueName, Queue>();

  constructor(
    readonly connection: Redis,
    readonly prefix: string,
  ) {
    for (const name of QUEUE_NAMES) {
      this.queues.set(name, new Queue(name, { connection, prefix }));
    }
  }

  get(name: QueueName): Queue {
    const q = this.queues.get(name);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  }

  all(): Queue[] {
    return [...this.queues.values()];
  }

  async add<Q extends QueueName, N extends JobName<Q>>(
    queue: Q,
    name: N,
    data: JobPayload<Q, N>,
    opts: JobsOptions = {},
  ): Promise<void> {
    await this.get(queue).add(name, data, { removeOnComplete: 1000, removeOnFail: 5000, ...opts });
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((q) => q.close()));
  }
}
