/**
 * The real-time event bus (decisions D10): any process (API or worker)
 * publishes an event through Redis; every API process's socket server
 * delivers it to the sockets it holds that are entitled to it.
 */
import type { Redis } from 'ioredis';

export type Audience =
  /** the generator (API user id) that owns the offer */
  | { kind: 'generator'; apiUserId: number }
  /** one technician (technician id) */
  | { kind: 'technician'; technicianId: number }
  /** every socket subscribed to an offer (generator sockets and its socketId) */
  | { kind: 'offer'; offerUuid: string; apiUserId: number }
  /** operators */
  | { kind: 'operators' };

export interface BusMessage {
  audience: Audience;
  event: string;
  data: unknown;
}

export interface EventPublisher {
  publish(audience: Audience, event: string, data: unknown): Promise<void>;
  /** many events in one round trip (a pipeline), in order; resolves when all were published */
  publishMany(messages: BusMessage[]): Promise<void>;
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
