/** PUT /aceptacion's answer (spec 4.3, D4): `{status, data}`, or the generator's own reply to a refused late acceptance. */
import { ACCEPTANCE_MESSAGES, type AcceptanceOutcome } from '../../domain/offers/acceptance/acceptance.js';
import { relayableReply } from '../../webhooks/relay.js';

export interface PresentedAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * The generator's reply to a rejected forward, as the 400 body (D4c): JSON
 * objects as they are, anything else wrapped; bounded and cleaned (webhooks/relay.ts).
 */
function generatorReplyBody(replyBody: string | null): Record<string, unknown> {
  if (!replyBody) return { status: false, data: ACCEPTANCE_MESSAGES.generatorNoAnswer };
  const relayed = relayableReply(replyBody);
  return relayed.kind === 'object' ? relayed.value : { status: false, data: relayed.value };
}

export function presentAcceptance(outcome: AcceptanceOutcome): PresentedAnswer {
  switch (outcome.kind) {
    case 'recorded':
      return { status: 200, body: { status: true, data: ACCEPTANCE_MESSAGES.recorded } };
    case 'accepted':
      return { status: 200, body: { status: true, data: outcome.paymentPending ? ACCEPTANCE_MESSAGES.paymentPending : ACCEPTANCE_MESSAGES.accepted } };
    case 'forward-rejected':
      return { status: 400, body: generatorReplyBody(outcome.replyBody) };
  }
}
