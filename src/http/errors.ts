/**
 * Errors are values with an HTTP status and the body the spec gives them
 * (STYLE 9). They are raised anywhere and turned into the response in one
 * middleware (middleware/errors.ts).
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

/** PUT /aceptacion envelope (spec 4.3): the message travels in `data`. */
export function acceptanceError(status: number, data: unknown): HttpError {
  return new HttpError(status, { status: false, data });
}

export const MESSAGES = {
  internal: 'Error interno del servidor',
  badTarget: 'La ruta de la solicitud no es válida.',
  timeout: 'La petición ha excedido el tiempo de espera',
  bodyTooLarge: 'El cuerpo de la solicitud excede el tamaño permitido',
  malformedJson: 'EL CUERPO DE LA SOLICITUD NO ES UN JSON VÁLIDO',
  unsupportedMediaType: 'EL CUERPO DE LA SOLICITUD DEBE SER JSON (Content-Type: application/json)',
  unsupportedEncoding: 'LA CODIFICACIÓN DEL CUERPO DE LA SOLICITUD NO ES SOPORTADA',
} as const;
