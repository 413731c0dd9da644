/** The spec's wording of a move the state machine refused (D1, D6, D11, spec 4.4, 4.8), naming the current state. */
import type { RefusedOperation } from '../domain/errors.js';
import { ACTIVE_STATES, type OfferState } from '../domain/offers/lifecycle/states.js';

const ENDED_AFTER_ASSIGNMENT: readonly OfferState[] = ['FINALIZADA', 'CANCELADA'];

/** The spec's wording of a refused move (D1, D6, D11, spec 4.4, 4.8), naming the current state. */
export function refusedMoveMessage({ state, operation, to }: { state: OfferState; operation: RefusedOperation; to?: OfferState }): string {
  switch (operation) {
    case 'asignacion':
      return `NO ES POSIBLE CONFIRMAR LA ASIGNACIÓN: EL SERVICIO ESTÁ EN ESTADO ${state}`;
    case 'no-asignacion':
      return ACTIVE_STATES.includes(state)
        ? `EL SERVICIO YA FUE ASIGNADO (ESTADO ${state}); PARA RETIRARLO SOLICITE LA CANCELACIÓN`
        : `NO ES POSIBLE REGISTRAR LA NO ASIGNACIÓN: EL SERVICIO ESTÁ EN ESTADO ${state}`;
    case 'cancelacion':
      return ENDED_AFTER_ASSIGNMENT.includes(state)
        ? `EL SERVICIO YA SE ENCUENTRA EN ESTADO ${state}, POR LO TANTO NO ES POSIBLE PROCESAR LA CANCELACIÓN`
        : `LA OFERTA AÚN NO HA SIDO ASIGNADA, POR LO TANTO NO ES POSIBLE PROCESAR LA CANCELACIÓN (ESTADO ${state})`;
    case 'finalize':
      return `El servicio no está activo (estado ${state}), no es posible finalizarlo`;
    case 'add-address':
      return `NO ES POSIBLE AGREGAR DIRECCIONES: EL SERVICIO ESTÁ EN ESTADO ${state}`;
    case 'progreso':
      return `NO ES POSIBLE CAMBIAR EL ESTADO A ${to ?? state}: EL SERVICIO ESTÁ EN ESTADO ${state}`;
    case 'cambio-tecnico':
      return `NO ES POSIBLE CAMBIAR EL TÉCNICO: EL SERVICIO ESTÁ EN ESTADO ${state}`;
    default:
      return `LA OPERACIÓN NO ES PERMITIDA: EL SERVICIO ESTÁ EN ESTADO ${state}`;
  }
}

