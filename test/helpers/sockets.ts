/**
 * Real `ws` clients for the real-time endpoints (D10), and the identities
 * they connect as: a generator (Basic), a technician (its central's key plus
 * its document) and an operator (JWT).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { WebSocket, type ClientOptions } from 'ws';
import type { IncomingMessage } from 'node:http';
import type { ApiUser, Central, Technician } from '../../src/db/entities/index.js';
import { signOperatorToken } from '../../src/auth/jwt.js';
import { makeApiUser, makeCentral, makeOperator, makeTechnician } from './factories.js';
import { waitFor } from './wait.js';

export interface Frame {
  event: string;
  data: unknown;
  ref?: string;
}

export class TestSocket {
  readonly frames: Frame[] = [];
  socketId = '';

  constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => this.frames.push(JSON.parse(String(raw)) as Frame));
  }

  send(event: string, data?: unknown, ref?: string): void {
    this.ws.send(JSON.stringify({ event, data, ref }));
  }

  /** Frames of one event received so far. */
  events(event: string): Frame[] {
    return this.frames.filter((f) => f.event === event);
  }

  /** The first frame of `event` (matching `match`) received, waiting for it when needed. */
  next(event: string, match: (f: Frame) => boolean = () => true, timeoutMs = 5000): Promise<Frame> {
    return waitFor(() => this.frames.find((f) => f.event === event && match(f)), timeoutMs, `${event} frame`);
  }

  /** Resolves with the close code once the socket is closed. */
  closed(): Promise<number> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve(-1);
    return new Promise((resolve) => this.ws.once('close', (code) => resolve(code)));
  }

  async close(): Promise<void> {
    const done = this.closed();
    this.ws.close();
    await done;
  }
}

export function wsUrl(httpUrl: string, path = '/v3'): string {
  return `${httpUrl.replace(/^http/, 'ws')}${path}`;
}

/** Opens a socket; resolves once `connected` arrived (rejects with the HTTP status of a refusal). */
export function connect(url: string, opts: ClientOptions = {}): Promise<TestSocket> {
  const ws = new WebSocket(url, opts);
  const s = new TestSocket(ws);
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
    ws.once('error', reject);
    ws.on('message', () => {
      const hello = s.frames.find((f) => f.event === 'connected');
      if (!hello || s.socketId) return;
      s.socketId = (hello.data as { socketId: string }).socketId;
      resolve(s);
    });
  });
}

/** The HTTP answer (status, headers, JSON body) to an upgrade the server refuses. */
export function refusal(
  url: string,
  opts: ClientOptions = {},
): Promise<{ status: number; headers: IncomingMessage['headers']; body: Record<string, unknown> }> {
  const ws = new WebSocket(url, opts);
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      ws.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('error', () => undefined);
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        ws.terminate();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      });
    });
  });
}

/**
 * A client that completes the handshake, reads `connected`, then stops reading
 * at the kernel level (a stalled peer): the server's unsent bytes can only grow.
 */
export async function stalledClient(url: string, headers: Record<string, string>): Promise<{ socketId: string; socket: net.Socket }> {
  const { hostname, port, pathname } = new URL(url);
  let received = '';
  const socket = net.connect({
    host: hostname,
    port: Number(port),
    onread: {
      buffer: Buffer.alloc(16 * 1024),
      callback: (n: number, buf: Uint8Array) => {
        received += Buffer.from(buf.buffer, buf.byteOffset, n).toString('latin1');
        return true;
      },
    },
  });
  socket.on('error', () => undefined);
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(
    `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n${lines.join('')}\r\n`,
  );
  const socketId = await waitFor(() => /"socketId":"([^"]+)"/.exec(received)?.[1], 5000, 'connected frame');
  socket.pause();
  return { socketId, socket };
}

export { makeGenerator, type Generator } from './factories.js';

export interface Crew {
  user: ApiUser;
  central: Central;
  technician: Technician;
  apiKey: string;
  headers: { 'x-apikey': string; 'x-dni-tecnico': string };
}

/** A central with its API user (key) and one technician. */
export async function makeCrew(em: EntityManager, o: { status?: 'ACTIVO' | 'INACTIVO'; endpoints?: string[] } = {}): Promise<Crew> {
  const apiKey = `key-${randomBytes(8).toString('hex')}`;
  const nit = `9${randomBytes(4).readUInt32BE() % 1e8}`.padEnd(9, '0');
  const { user } = await makeApiUser(em, { apiKey, nit, endpoints: o.endpoints ?? ['/aceptacion', '/estado-servicio'], status: o.status ?? 'ACTIVO' });
  const central = await makeCentral(em, { apiUser: user, nit });
  const technician = await makeTechnician(em, central);
  return { user, central, technician, apiKey, headers: { 'x-apikey': apiKey, 'x-dni-tecnico': technician.dni } };
}

export async function makeOperatorToken(em: EntityManager, jwtSecret: string): Promise<string> {
  const { operator } = await makeOperator(em);
  return signOperatorToken(operator, jwtSecret, '1h');
}
