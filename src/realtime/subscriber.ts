/**
 * The API process's side of the bus (D10): a Redis connection of its own
 * subscribed to the real-time channel; each message is validated and handed
 * over. ioredis reconnects and resubscribes by itself; what is published
 * while it is away is not replayed (pub/sub delivers at most once).
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { Logger } from 'pino';
import { compile } from '../api/validation.js';
import { duplicateRedis, type Redis } from '../queues/redis.js';
import { busChannel, type BusMessage } from './bus.js';

const id = { type: 'integer' } as const;

const busSchema = {
  type: 'object',
  required: ['audience', 'event'],
  properties: {
    audience: {
      oneOf: [
        { type: 'object', required: ['kind', 'apiUserId'], properties: { kind: { const: 'generator' }, apiUserId: id } },
        { type: 'object', required: ['kind', 'technicianId'], properties: { kind: { const: 'technician' }, technicianId: id } },
        {
          type: 'object',
          required: ['kind', 'technicianIds'],
          properties: { kind: { const: 'technicians' }, technicianIds: { type: 'array', items: id } },
        },
        {
          type: 'object',
          required: ['kind', 'offerUuid', 'apiUserId'],
          properties: { kind: { const: 'offer' }, offerUuid: { type: 'string' }, apiUserId: id },
        },
        { type: 'object', required: ['kind'], properties: { kind: { const: 'operators' } } },
        { type: 'object', required: ['kind', 'offerUuid'], properties: { kind: { const: 'customer' }, offerUuid: { type: 'string' } } },
        {
          type: 'object',
          required: ['kind', 'offerUuid', 'tokenHash'],
          properties: { kind: { const: 'trackingToken' }, offerUuid: { type: 'string' }, tokenHash: { type: 'string' } },
        },
      ],
    },
    event: { type: 'string', minLength: 1 },
    data: {},
    each: { type: 'object', additionalProperties: { type: 'object' } },
    selection: {
      type: 'object',
      required: ['technicianId', 'selected', 'closed'],
      properties: { technicianId: id, selected: { type: 'object' }, closed: { type: 'object' } },
    },
  },
} as const;

/** How long start-up waits for the subscription before going on without it. */
const SUBSCRIBE_WAIT_MS = 2000;

export interface BusSubscription {
  close(): Promise<void>;
}

/** Subscribes (resolves once the subscription is active, or after SUBSCRIBE_WAIT_MS) and calls `onMessage` for every valid bus message. */
export async function subscribeBus(
  redis: Redis,
  prefix: string,
  log: Logger,
  onMessage: (msg: BusMessage) => void,
): Promise<BusSubscription> {
  const channel = busChannel(prefix);
  // Waits for Redis however long it is away (the command connection it is copied from fails fast, D21: its offline
  // queue and command timeout are not this one's).
  const sub = duplicateRedis(redis, { maxRetriesPerRequest: null, enableOfflineQueue: true, commandTimeout: undefined });
  sub.on('error', (err: Error) => log.warn({ err }, 'real-time subscriber connection error'));
  sub.on('message', (ch: string, text: string) => {
    if (ch !== channel) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    const valid = compile(busSchema);
    if (!valid(value)) {
      log.warn({ errors: valid.errors }, 'malformed real-time bus message dropped');
      return;
    }
    try {
      onMessage(value as FromSchema<typeof busSchema> as BusMessage);
    } catch (err) {
      log.error({ err }, 'real-time bus message not delivered');
    }
  });
  // Wait a moment for the subscription; when Redis is not reachable yet the process still starts
  // (/health says 503), and ioredis subscribes as soon as it connects.
  const subscribed = sub.subscribe(channel).then(
    () => true,
    (err: unknown) => {
      log.warn({ err }, 'real-time subscription failed');
      return false;
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const waited = await Promise.race([subscribed, new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), SUBSCRIBE_WAIT_MS)))]);
  clearTimeout(timer);
  if (!waited) log.warn({ channel }, 'real-time subscription not active yet; it follows when Redis answers');
  return {
    async close() {
      if (sub.status === 'ready') await sub.quit().catch(() => sub.disconnect());
      else sub.disconnect();
    },
  };
}
