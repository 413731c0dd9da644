import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { MESSAGES, newErrorId, systemBody } from '../envelopes.js';

export const CLIENT_ERROR_MESSAGES = {
  malformed: 'La solicitud HTTP no es válida.',
  headersTooLarge: 'Las cabeceras de la solicitud son demasiado grandes.',
} as const;

/**
 * A request Node's parser refuses (bad request line, bad header, headers too large, too slow) is
 * answered in the system envelope (spec 7.2) and the connection closed, as Node would do without a
 * listener; anything unexpected on that path is logged with an errorId and never ends the process.
 */
export function clientErrorHandler(log: Logger) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    try {
      // As Node itself: nothing is written over a response already on its way on this connection.
      const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
      if (err.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) return void socket.destroy();
      const status =
        err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'HPE_TIMEOUT' ? 408 : 400;
      const message = status === 431 ? CLIENT_ERROR_MESSAGES.headersTooLarge : status === 408 ? MESSAGES.timeout : CLIENT_ERROR_MESSAGES.malformed;
      const text = JSON.stringify(systemBody(message));
      log.debug({ code: err.code, status }, 'client error');
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(text)}\r\n` +
          'Connection: close\r\n\r\n' +
          text,
      );
      socket.once('finish', () => socket.destroy());
    } catch (unexpected) {
      log.error({ err: unexpected, errorId: newErrorId() }, 'client error handler failed');
      socket.destroy();
    }
  };
}
