/** Offer and service states (decisions D1). Stored and returned in upper case. */
export const OFFER_STATES = [
  'ABIERTA',
  'SIN_RESPUESTA',
  'EXPIRADA',
  'ACEPTADA',
  'ASIGNADA',
  'EN_CAMINO',
  'EN_SITIO',
  'FINALIZADA',
  'CANCELADA',
  'NO_ASIGNADA',
  'INACTIVA',
] as const;

export type OfferState = (typeof OFFER_STATES)[number];

/** States in which a service is "active" (spec 4.4, D1). */
export const ACTIVE_STATES: readonly OfferState[] = ['ASIGNADA', 'EN_CAMINO', 'EN_SITIO'];

/** Who or what moves an offer (the transition table's `by`, stateMachine.ts). */
export type Trigger =
  | 'oferta'
  | 'asignacion-directa'
  | 'evaluacion'
  | 'aceptacion-propia'
  | 'aceptacion-tardia'
  | 'expiracion'
  | 'asignacion'
  | 'webhook-rechazado'
  | 'no-asignacion'
  | 'cancelacion'
  | 'progreso'
  | 'cambio-tecnico'
  | 'finalize';
