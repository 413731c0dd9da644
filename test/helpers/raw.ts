import { connect, type Socket } from 'node:net';

export interface RawResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses one HTTP/1.1 response with a Content-Length body. */
export function parseResponse(raw: string): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = raw.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { statusCode: Number(statusLine.split(' ')[1]), headers, body: raw.slice(split + 4) };
}

/**
 * A raw connection for requests no HTTP client sends on purpose (a body that
 * never arrives, a body sent in parts). `received` resolves with everything the
 * server sent once it closes the connection.
 */
export function rawConnection(port: number): { socket: Socket; received: Promise<string>; data: () => string } {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
  const received = new Promise<string>((resolve, reject) => {
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  return { socket, received, data: () => text };
}
