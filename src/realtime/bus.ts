/**
 * The real-time event bus (decisions D10): any process (API or worker)
 * publishes an event through Redis; every API process's socket server
 * delivers it to the sockets it holds that are entitled to it.
 */
import type { Redis } from '../queues/redis.js';
import type { Audience, BusMessage, EventPublisher } from '../domain/ports.js';

export type { Audience, BusMessage, EventPublisher };

/**
 * A `technicians` message as the single-technician messages it stands for
 * (each with its own fields over the shared data); any other message as is.
 * One bus message per distribution instead of one per technician: Redis and
 * every API process handle one publish of the offer, not fifty (issue 12).
 * With `wanted`, only the technicians it accepts: an API process builds the
 * messages of the technicians whose sockets it holds, not of all fifty.
 */
export function perTechnician(msg: BusMessage, wanted?: (technicianId: number) => boolean): BusMessage[] {
  if (msg.audience.kind !== 'technicians') return [msg];
  const shared = (msg.data ?? {}) as Record<string, unknown>;
  const ids = wanted ? msg.audience.technicianIds.filter(wanted) : msg.audience.technicianIds;
  return ids.map((technicianId) => ({
    audience: { kind: 'technician', technicianId },
    event: msg.event,
    data: { ...shared, ...(msg.each?.[String(technicianId)] ?? {}) },
  }));
}

export function busChannel(prefix: string): string {
  return `${prefix}-realtime`;
}

/** Publishes on Redis pub/sub; fire-and-forget semantics, errors are logged by the caller. */
export class RedisEventPublisher implements EventPublisher {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async publish(audience: Audience, event: string, data: unknown): Promise<void> {
    const msg: BusMessage = { audience, event, data };
    await this.redis.publish(busChannel(this.prefix), JSON.stringify(msg));
  }

  async publishMany(messages: BusMessage[]): Promise<void> {
    if (!messages.length) return;
    const channel = busChannel(this.prefix);
    const pipeline = this.redis.pipeline();
    for (const msg of messages) pipeline.publish(channel, JSON.stringify(msg));
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0];
  }
}
