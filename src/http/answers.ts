/**
 * The technician's operations answered as values `{status, body}` instead of
 * HTTP responses: the socket layer's `<event>.result` (D10) and the same
 * answer the HTTP route gives. Each is the route's shape without Koa: schema
 * validation → one domain call → the presenter, and any error through the one
 * table (errorMap.ts) in the acceptance envelope, or the endpoint's own 500
 * message.
 */
import type { ApiUser } from '../db/entities/index.js';
import { ACCEPTANCE_MESSAGES, acceptOffer, acceptanceMessage, acceptanceSchema } from '../domain/offers/acceptance/acceptance.js';
import {
  PROGRESS_MESSAGES,
  progressMessage,
  progressSchema,
  reportServiceProgress,
  type ProgressCaller,
} from '../domain/offers/operations/progress.js';
import {
  POSITION_MESSAGES,
  positionByCentralSchema,
  positionByTechnicianSchema,
  positionMessage,
  reportPosition,
  type PositionCaller,
  type PositionInput,
} from '../geo/positions.js';
import type { Runtime } from '../domain/ports.js';
import { errorAnswer } from './errorMap.js';
import { envelopeBody, newErrorId, type Envelope } from './errors.js';
import { presentAcceptance, type PresentedAnswer } from './presenters/acceptance.js';
import { positionBody } from './presenters/positions.js';
import { progressBody } from './presenters/progress.js';
import { checkBody, validateBody } from './validation.js';

/** Runs `run`; an error becomes its answer in `envelope`, an unexpected one the endpoint's `failure` 500 (logged). */
export async function answer(rt: Runtime, envelope: Envelope, failure: string, run: () => Promise<PresentedAnswer>): Promise<PresentedAnswer> {
  try {
    return await run();
  } catch (err) {
    const known = errorAnswer(err, envelope);
    if (known) return { status: known.status, body: known.body };
    rt.log.error({ err, errorId: newErrorId() }, failure);
    return { status: 500, body: envelopeBody(envelope, failure) };
  }
}

/** PUT /aceptacion (D4) as a value. */
export function respondToOffer(rt: Runtime, caller: ApiUser, raw: unknown): Promise<PresentedAnswer> {
  return answer(rt, 'acceptance', ACCEPTANCE_MESSAGES.failure, async () => {
    const input = validateBody(acceptanceSchema, raw, acceptanceMessage);
    return presentAcceptance(await acceptOffer(rt, caller, input));
  });
}

/** PUT /estado-servicio (D11) as a value; a technician reports as itself. */
export function reportProgress(rt: Runtime, caller: ProgressCaller, raw: unknown): Promise<PresentedAnswer> {
  return answer(rt, 'acceptance', PROGRESS_MESSAGES.internal, async () => {
    const input = validateBody(progressSchema, raw, progressMessage);
    return { status: 200, body: progressBody(await reportServiceProgress(rt, caller, input)) };
  });
}

/** PUT /posicion-tecnico (D8) as a value; a technician reports as itself. */
export function updateTechnicianPosition(rt: Runtime, caller: PositionCaller, raw: unknown): Promise<PresentedAnswer> {
  return answer(rt, 'acceptance', POSITION_MESSAGES.failure, async () => {
    const schema = 'technicianId' in caller ? positionByTechnicianSchema : positionByCentralSchema;
    const input = checkBody(schema, raw, positionMessage) as PositionInput;
    await reportPosition(rt, caller, input);
    return { status: 200, body: positionBody() };
  });
}
