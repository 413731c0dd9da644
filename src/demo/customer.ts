/**
 * The customer following one service: asks for the SMS code (POST
 * /tracking/requestCode), reads it where SMS_PROVIDER=outbox leaves it (the
 * `sms_message` table, as docs/operations.md tells an operator to), opens
 * the follow-up with it (POST /tracking/track), listens on the tracking
 * socket and chats with the technician. Then asks for a second code, left
 * unused for the person running the demo to open the customer page with.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import WebSocket from 'ws';
import type { ApiClient } from './http.js';
import type { Tally } from './tally.js';

export interface CustomerDeps {
  api: ApiClient;
  wsUrl: string;
  databaseUrl: string;
  tally: Tally;
  log(line: string): void;
}

export interface FollowedService {
  uuid: string;
  expediente: string;
  telefono: string;
}

/** What the person running the demo types on the customer page. */
export interface PageCode extends FollowedService {
  code: string;
}

export class Customer {
  private ws?: WebSocket;
  private readonly db: pg.Pool;
  private readonly seenSms = new Set<string>();
  private stopped = false;

  constructor(private readonly deps: CustomerDeps) {
    this.db = new pg.Pool({ connectionString: deps.databaseUrl, max: 1 });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ws?.close(1000);
    await this.db.end();
  }

  /** Follows the service to a chat message; returns a fresh code for the customer page. */
  async follow(s: FollowedService): Promise<PageCode> {
    const { api, tally } = this.deps;
    const code = await this.requestCode(s);
    tally.add('customerCode');
    const tracked = await api.call('POST', '/tracking/track', {}, { expediente: s.expediente, code }, { signed: true });
    const token = (tracked.body.data as { token?: string } | undefined)?.token;
    if (tracked.status !== 200 || !token) throw new Error(`POST /tracking/track: ${tracked.status} ${JSON.stringify(tracked.body)}`);
    tally.add('customerTracked');
    await this.listen(s, token);
    const sent = await api.call(
      'POST',
      `/chat/${encodeURIComponent(s.expediente)}/messages`,
      { bearer: token },
      { texto: 'Hola, estoy junto al carro, frente a la tienda. ¿Cuánto le falta?', clientId: randomUUID() },
      { signed: true },
    );
    if (sent.status !== 200) throw new Error(`customer chat: ${sent.status} ${JSON.stringify(sent.body)}`);
    tally.add('chatSent');
    // a code of its own for the customer page (the first one is spent): it lives 10 minutes
    return { ...s, code: await this.requestCode(s) };
  }

  private async listen(s: FollowedService, token: string): Promise<void> {
    const { api, tally } = this.deps;
    // the token in a header, never in the URL (D24)
    const ws = new WebSocket(this.deps.wsUrl, { headers: { authorization: `Bearer ${token}` } });
    this.ws = ws;
    await new Promise<void>((resolve, reject) => {
      ws.on('message', (raw) => {
        const f = JSON.parse(String(raw)) as { event: string; data: Record<string, unknown> };
        if (f.event === 'connected') resolve();
        if (f.event === 'service.position') tally.add('customerPosition');
        if (f.event === 'chat.message') {
          const m = f.data.message as { autor?: string; id?: number };
          if (m.autor !== 'tecnico') return;
          tally.add('chatReceived');
          void api.call('PUT', `/chat/${encodeURIComponent(s.expediente)}/read`, { bearer: token }, { hasta: m.id }, { signed: true });
        }
      });
      ws.once('unexpected-response', (_q, res) => reject(new Error(`tracking socket refused (${res.statusCode})`)));
      ws.once('error', reject);
    });
  }

  /** Asks for a code and reads it from the SMS outbox (a row newer than any seen). */
  private async requestCode(s: FollowedService): Promise<string> {
    const r = await this.deps.api.call('POST', '/tracking/requestCode', {}, { expediente: s.expediente, telefono: s.telefono }, { signed: true });
    if (r.status !== 200) throw new Error(`POST /tracking/requestCode: ${r.status} ${JSON.stringify(r.body)}`);
    const deadline = Date.now() + 20_000;
    while (!this.stopped && Date.now() < deadline) {
      const { rows } = await this.db.query<{ id: string; body: string }>(
        'select id::text, body from sms_message where offer_uuid = $1 order by created_at desc limit 1',
        [s.uuid],
      );
      const row = rows[0];
      if (row && !this.seenSms.has(row.id)) {
        this.seenSms.add(row.id);
        const code = /\b(\d{6})\b/.exec(row.body)?.[1];
        if (code) return code;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no SMS for ${s.expediente} in the outbox within 20 s`);
  }
}
