/**
 * The demo's HTTP client: the API as an integrator calls it, with HTTP Basic
 * (generators), the central's `x-apikey` (and `x-dni-tecnico` for the
 * technician's chat), a customer's Bearer token, and the D13 integrity
 * signature the chat and tracking routes require.
 */
import { createHmac, randomUUID } from 'node:crypto';

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export type Credentials =
  | { basic: { username: string; password: string } }
  | { apiKey: string; dniTecnico?: string }
  | { bearer: string }
  | Record<string, never>;

export interface ApiClient {
  base: string;
  call(method: string, path: string, creds: Credentials, body?: unknown, opts?: { signed?: boolean }): Promise<Answer>;
}

/** `base` is the service's origin (http://127.0.0.1:3000); paths are under /api/v3. */
export function apiClient(base: string, integritySecret: string): ApiClient {
  return {
    base,
    async call(method, path, creds, body, opts = {}) {
      const target = `/api/v3${path}`;
      const raw = body === undefined ? '' : JSON.stringify(body);
      const headers: Record<string, string> = {};
      if (body !== undefined) headers['content-type'] = 'application/json';
      if ('basic' in creds) headers.authorization = `Basic ${Buffer.from(`${creds.basic.username}:${creds.basic.password}`).toString('base64')}`;
      if ('apiKey' in creds) {
        headers['x-apikey'] = creds.apiKey;
        if (creds.dniTecnico) headers['x-dni-tecnico'] = creds.dniTecnico;
      }
      if ('bearer' in creds) headers.authorization = `Bearer ${creds.bearer}`;
      if (opts.signed) {
        const ts = String(Math.floor(Date.now() / 1000));
        const nonce = randomUUID();
        headers['x-timestamp'] = ts;
        headers['x-nonce'] = nonce;
        headers['x-signature'] = createHmac('sha256', integritySecret).update(`${ts}.${nonce}.${method}.${target}.${raw}`).digest('hex');
      }
      const res = await fetch(`${base}${target}`, { method, headers, body: raw || undefined, signal: AbortSignal.timeout(30_000) });
      const text = await res.text();
      let parsed: Record<string, unknown>;
      try {
        parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        parsed = { text };
      }
      return { status: res.status, body: parsed };
    },
  };
}
