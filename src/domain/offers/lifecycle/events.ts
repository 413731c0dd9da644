/**
 * Live events about one offer (decisions D10), published after commit to
 * every socket subscribed to it. A failed publish is logged, never thrown.
 */
import type { Runtime } from '../../ports.js';
import type { BusMessage, OfferSelection } from '../../ports.js';
import type { OfferRef } from './announce.js';

export type OfferEvent = 'offer.response' | 'offer.accepted' | 'offer.state' | 'offer.closed' | 'offer.subscribe';

export type ClosedResult = 'selected' | 'no-response' | 'withdrawn' | 'assigned-own';

export interface OfferEventOf {
  offer: OfferRef;
  event: OfferEvent;
  data: Record<string, unknown>;
  /** the technicians' side of a selection this event tells (D20) */
  selection?: OfferSelection;
}

function message({ offer, event, data, selection }: OfferEventOf): BusMessage {
  const msg: BusMessage = { audience: { kind: 'offer', offerUuid: offer.uuid, apiUserId: offer.generatorId }, event, data: { uuid: offer.uuid, ...data } };
  if (selection) msg.selection = selection;
  return msg;
}

export async function publishOfferEvent(rt: Runtime, offer: OfferRef, event: OfferEvent, data: Record<string, unknown>, selection?: OfferSelection): Promise<void> {
  const msg = message({ offer, event, data, selection });
  const sent = selection ? rt.events.publishMany([msg]) : rt.events.publish(msg.audience, event, msg.data);
  await sent.catch((err: unknown) => rt.log.warn({ err, uuid: offer.uuid, event }, 'offer event not published'));
}

/** Several offers' events in one round trip (a pipeline), in the order given (a batch of closing windows), then `also`. */
export async function publishOfferEvents(rt: Runtime, events: readonly OfferEventOf[], also: readonly BusMessage[] = []): Promise<void> {
  await rt.events
    .publishMany([...events.map(message), ...also])
    .catch((err: unknown) => rt.log.warn({ err, uuids: [...new Set(events.map((e) => e.offer.uuid))] }, 'offer events not published'));
}

/**
 * D23: the operators' sockets hear of every batch of transitions in one message (`offer.states`), so the console's
 * map and work queue follow the market at the cost of one more publish per batch, not one per offer.
 */
export function operatorStatesMessage(changes: ReadonlyArray<{ uuid: string; estado: string; anterior: string | null }>, fecha: string): BusMessage {
  return { audience: { kind: 'operators' }, event: 'offer.states', data: { cambios: changes, fecha } };
}
