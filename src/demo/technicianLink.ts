/**
 * How a technician's app reaches the service, in one place: its socket
 * (docs/realtime.md) and its credentials for the HTTP chat. Today both use
 * its central's `x-apikey` plus `x-dni-tecnico`, as the spec allows; when
 * technicians get tokens of their own (issue 31), only this module changes.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import type { Credentials } from './http.js';

export interface TechnicianIdentity {
  apiKey: string;
  dni: string;
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

/** The technician's credentials for the HTTP API (the chat). */
export function technicianCredentials(who: TechnicianIdentity): Credentials {
  return { apiKey: who.apiKey, dniTecnico: who.dni };
}

/** Opens the technician's socket on `wsUrl` (ws://host:port/v3); resolves on the server's `connected`. */
export function connectTechnician(wsUrl: string, who: TechnicianIdentity): Promise<TechnicianLink> {
  const ws = new WebSocket(wsUrl, { headers: { 'x-apikey': who.apiKey, 'x-dni-tecnico': who.dni } });
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
