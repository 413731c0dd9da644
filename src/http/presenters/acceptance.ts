/** PUT /aceptacion's answer (spec 4.3, D4): `{status, data}`, or the generator's own reply to a refused late acceptance. */
import { ACCEPTANCE_MESSAGES, type AcceptanceOutcome } from '../../domain/offers/acceptance/acceptance.js';

export interface PresentedAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** The generator's reply to a rejected forward, as the 400 body (D4c): JSON objects as they are, anything else wrapped. */
function generatorReplyBody(replyBody: string | null): Record<string, unknown> {
  if (!replyBody) return { status: false, data: ACCEPTANCE_MESSAGES.generatorNoAnswer };
  try {
    const parsed: unknown = JSON.parse(replyBody);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    return { status: false, data: parsed };
  } catch {
    return { status: false, data: replyBody };
  }
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
