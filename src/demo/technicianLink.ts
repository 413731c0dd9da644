/**
 * How a technician's app reaches the service, in one place: its own token
 * (D20: `POST /tecnicos/token`, asked for by its central with its key), then
 * its socket (docs/realtime.md) and the HTTP chat on that token alone.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import type { ApiClient, Credentials } from './http.js';

export interface TechnicianIdentity {
  dni: string;
  /** its own bearer token (technicianToken) */
  token: string;
}

export interface Frame {
  event: string;
  data: Record<string, unknown>;
  ref?: string;
}

export interface TechnicianLink {
  /** sends an action (`position`, `offer.respond`, `progress`) and waits for its `<event>.result` */
  request(event: string, data: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }>;
  onEvent(fn: (frame: Frame) => void): void;
  close(): void;
}

/** The central asks for its technician's own token (D20), with its key. */
export async function technicianToken(api: ApiClient, centralApiKey: string, dni: string): Promise<string> {
  const r = await api.call('POST', '/tecnicos/token', { apiKey: centralApiKey }, { dniTecnico: dni });
  if (r.status !== 200 || typeof r.body.token !== 'string') throw new Error(`technician ${dni}: no token (${r.status} ${JSON.stringify(r.body)})`);
  return r.body.token;
}

/** The technician's credentials for the HTTP API (the chat). */
export function technicianCredentials(who: TechnicianIdentity): Credentials {
  return { bearer: who.token };
}

/** Opens the technician's socket on `wsUrl` (ws://host:port/v3); resolves on the server's `connected`. */
export function connectTechnician(wsUrl: string, who: TechnicianIdentity): Promise<TechnicianLink> {
  const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${who.token}` } });
  const waiting = new Map<string, (r: { status: number; body: Record<string, unknown> }) => void>();
  const listeners: Array<(f: Frame) => void> = [];
  return new Promise((resolve, reject) => {
    const link: TechnicianLink = {
      request(event, data) {
        const ref = randomUUID();
        return new Promise((done, fail) => {
          if (ws.readyState !== WebSocket.OPEN) return fail(new Error(`the socket of ${who.dni} is closed`));
          const timer = setTimeout(() => {
            waiting.delete(ref);
            fail(new Error(`${event}: no answer in 15 s`));
          }, 15_000);
          waiting.set(ref, (r) => {
            clearTimeout(timer);
            done(r);
          });
          ws.send(JSON.stringify({ event, data, ref }));
        });
      },
      onEvent: (fn) => listeners.push(fn),
      close: () => ws.close(1000),
    };
    ws.on('message', (raw) => {
      const frame = JSON.parse(String(raw)) as Frame;
      if (frame.event === 'connected') return resolve(link);
      if (frame.ref && waiting.has(frame.ref) && (frame.event.endsWith('.result') || frame.event === 'error')) {
        const settle = waiting.get(frame.ref)!;
        waiting.delete(frame.ref);
        const r = frame.event === 'error' ? { status: 0, body: frame.data } : (frame.data as { status: number; body: Record<string, unknown> });
        return settle(r);
      }
      for (const fn of listeners) fn(frame);
    });
    ws.once('unexpected-response', (_req, res) => reject(new Error(`technician ${who.dni}: the upgrade was refused (${res.statusCode})`)));
    ws.once('error', reject);
  });
}
