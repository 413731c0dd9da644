/** PUT /posicion-tecnico's answer (D8), in the envelope of PUT /aceptacion: `{status: true, data}`. */
import { POSITION_MESSAGES } from '../../geo/positions.js';

export function positionBody(): { status: true; data: string } {
  return { status: true, data: POSITION_MESSAGES.ok };
}
