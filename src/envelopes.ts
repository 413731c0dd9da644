/**
 * Errors as answers, whatever the transport (STYLE 9), and the envelopes of
 * spec 7. Below every edge: src/auth answers its refusals with them too. An HttpError carries
 * its status and the whole body the spec gives it (authentication, body
 * parsing); a RequestError carries a status and a message and is shaped in
 * the envelope of the operation that raised it, like the domain's errors,
 * whose codes src/api/errorTable.ts maps. HTTP answers them in one middleware
 * (src/http/middleware/errors.ts), the socket in its results.
 */
import { randomBytes } from 'node:crypto';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.msg === 'string' ? body.msg : typeof body.message === 'string' ? body.message : `HTTP ${status}`);
    this.name = 'HttpError';
  }
}

/**
 * A client error whose body depends on the route's envelope: request
 * validation (400) and an endpoint's own failure message (500).
 */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

/**
 * The error envelopes of spec 7: `controller` `{status: false, msg, ...}`
 * (7.1, the default), `data` `{status: false, data: msg}` (PUT /aceptacion
 * 4.3 and the D8/D11 endpoints that share it), `key` `{status: false, msg,
 * ..., timestamp}` (the x-apikey validator, 5.2) and `system` `{error: true,
 * message, errorId, timestamp}` (7.2).
 */
export type Envelope = 'controller' | 'data' | 'key' | 'system';

/** An error's body in `envelope`. */
export function envelopeBody(envelope: Envelope, message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  switch (envelope) {
    case 'controller':
      return { status: false, msg: message, ...extra };
    case 'data':
      return { status: false, data: message };
    case 'key':
      return { status: false, msg: message, ...extra, timestamp: new Date().toISOString() };
    case 'system':
      return systemBody(message);
  }
}

/** `err_<epoch_ms>_<random>` (spec 7.2). */
export function newErrorId(): string {
  return `err_${Date.now()}_${randomBytes(5).toString('hex')}`;
}

/** System envelope (spec 7.2). */
export function systemBody(message: string, errorId = newErrorId()): Record<string, unknown> {
  return { error: true, message, errorId, timestamp: new Date().toISOString() };
}

/** Controller envelope (spec 7.1): `{status: false, msg}` with optional data. */
export function controllerError(status: number, msg: string, extra: Record<string, unknown> = {}): HttpError {
  return new HttpError(status, { status: false, msg, ...extra });
}

/** System envelope error (spec 7.2), e.g. Basic authentication failures. */
export function systemError(status: number, message: string): HttpError {
  return new HttpError(status, systemBody(message));
}

/** API key validator envelope (spec 5.2, 7.3): `{status: false, msg, timestamp}`. */
export function keyError(status: number, msg: string, extra: Record<string, unknown> = {}): HttpError {
  return new HttpError(status, { status: false, msg, ...extra, timestamp: new Date().toISOString() });
}

/** The data envelope (PUT /aceptacion, spec 4.3): the message travels in `data`. */
export function dataError(status: number, data: unknown): HttpError {
  return new HttpError(status, { status: false, data });
}

/** D13: the answers of the integrity check (chat and tracking), before the operation runs. */
export const INTEGRITY_MESSAGES = {
  missing: 'FALTAN LOS ENCABEZADOS DE INTEGRIDAD (x-timestamp, x-nonce, x-signature)',
  badTimestamp: "EL ENCABEZADO 'x-timestamp' DEBE SER UNA HORA UNIX EN SEGUNDOS",
  outOfWindow: 'LA SOLICITUD ESTÁ FUERA DE LA VENTANA DE 300 SEGUNDOS; REVISE EL RELOJ DEL CLIENTE',
  badNonce: "EL ENCABEZADO 'x-nonce' DEBE TENER ENTRE 1 Y 128 CARACTERES VISIBLES",
  badSignature: 'LA FIRMA DE INTEGRIDAD NO ES VÁLIDA',
  replayed: 'ESTA SOLICITUD YA FUE RECIBIDA (NONCE REPETIDO)',
} as const;

/** An operator page or operation reached without an operator's session (D15). */
export const OPERATOR_LOGIN_REQUIRED = 'Inicie sesión como operador para ver esta página.';

export const MESSAGES = {
  internal: 'Error interno del servidor',
  badTarget: 'La ruta de la solicitud no es válida.',
  timeout: 'La petición ha excedido el tiempo de espera',
  bodyTooLarge: 'El cuerpo de la solicitud excede el tamaño permitido',
  malformedJson: 'EL CUERPO DE LA SOLICITUD NO ES UN JSON VÁLIDO',
  unsupportedMediaType: 'EL CUERPO DE LA SOLICITUD DEBE SER JSON (Content-Type: application/json)',
  unsupportedEncoding: 'LA CODIFICACIÓN DEL CUERPO DE LA SOLICITUD NO ES SOPORTADA',
} as const;

