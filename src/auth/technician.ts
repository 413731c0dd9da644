/**
 * A technician authenticates with its central's x-apikey plus its own
 * document in x-dni-tecnico (D10 socket upgrade, D14 chat): the wording of
 * those checks, shared by both transports.
 */
export const TECHNICIAN_AUTH_MESSAGES = {
  dniMissing: 'No se ha brindado el documento del técnico (x-dni-tecnico).',
  technicianUnknown: 'NO SE ENCONTRÓ EL TÉCNICO',
  dniUnstorable: 'El documento del técnico (x-dni-tecnico) contiene caracteres no permitidos.',
} as const;

/** The customer page's httpOnly cookie holding its tracking token (D14): it also opens the page's socket. */
export const TRACKING_COOKIE = 'seguimiento';
