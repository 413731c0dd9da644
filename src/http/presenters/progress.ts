/** PUT /estado-servicio's answer (D11), in the envelope of PUT /aceptacion: `{status: true, data}`. */
import { PROGRESS_MESSAGES, type ProgressOutcome } from '../../domain/offers/operations/progress.js';

export function progressBody(outcome: ProgressOutcome): { status: true; data: string } {
  return { status: true, data: outcome.moved ? PROGRESS_MESSAGES.updated(outcome.state) : PROGRESS_MESSAGES.already(outcome.state) };
}
