/**
 * A generator's app (an insurer's system): posts offers (POST /oferta,
 * immediate or with fechaCita/horaCita), adds stops (POST /add-address),
 * follows its offers on its own socket, confirms the assignment (POST
 * /asignacion) when the acceptance notification (6.1) reaches its receiver,
 * and finalizes the service (POST /finalize) a while after EN_SITIO.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import type { ApiClient, Credentials } from './http.js';
import type { GeneratorPlayer, OfferSpec } from './plan.js';
import type { Notification } from './receivers.js';
import type { Random } from './random.js';
import type { Tally } from './tally.js';

export interface GeneratorDeps {
  api: ApiClient;
  wsUrl: string;
  tally: Tally;
  rnd: Random;
  speed: number;
  windowMs: number;
  /** deadlines of offers, by uuid (set here at posting, refined by the technicians' offer.new) */
  deadlines: Map<string, number>;
  /** the central's dispatcher: tells the technician its service is confirmed */
  dispatch(dniTecnico: string, uuid: string): void;
  /** the vehicle plate the central gave for its technician */
  placaOf(dniTecnico: string): string | undefined;
  /** a service assigned with the customer's phone: the customer may follow it */
  onAssigned(a: { uuid: string; codigoServicio: string; telefono?: string; tecnico: string }): void;
  log(line: string): void;
}

export class GeneratorApp {
  private ws?: WebSocket;
  private readonly phones = new Map<string, string>();
  /** services assigned and not finished, for a clean stop */
  readonly active = new Set<string>();
  readonly states = new Map<string, number>();
  private stopped = false;

  constructor(
    readonly player: GeneratorPlayer,
    private readonly deps: GeneratorDeps,
  ) {}

  private get creds(): Credentials {
    return { basic: { username: this.player.username, password: this.player.password } };
  }

  /** Its socket: offer.response and offer.closed of its own offers (docs/realtime.md). */
  async start(): Promise<void> {
    const auth = `Basic ${Buffer.from(`${this.player.username}:${this.player.password}`).toString('base64')}`;
    const ws = new WebSocket(this.deps.wsUrl, { headers: { authorization: auth } });
    this.ws = ws;
    await new Promise<void>((resolve, reject) => {
      ws.on('message', (raw) => {
        const f = JSON.parse(String(raw)) as { event: string; data: Record<string, unknown> };
        if (f.event === 'connected') resolve();
        if (f.event === 'offer.response') this.deps.tally.add('responseSeenByGenerator');
        if (f.event === 'offer.closed' && f.data.result === 'selected') this.deps.tally.add('selection');
      });
      ws.once('unexpected-response', (_q, res) => reject(new Error(`generator socket refused (${res.statusCode})`)));
      ws.once('error', reject);
    });
  }

  stop(): void {
    this.stopped = true;
    this.ws?.close(1000);
  }

  async post(spec: OfferSpec, telefono?: string): Promise<void> {
    const { api, tally } = this.deps;
    const uuid = randomUUID();
    const body: Record<string, unknown> = {
      uuid,
      tipoServicio: String(spec.tipoServicio),
      fechaCita: spec.cita?.fecha ?? '',
      observaciones: `DEMO (npm run demo): oferta ${spec.kind}`,
      ofertante: this.player.name,
    };
    if (spec.address) body.direccionOrigen = spec.address;
    else Object.assign(body, { latitudOrigen: spec.origin.lat, longitudOrigen: spec.origin.lng, direccionOrigen: `DEMO punto ${spec.origin.lat}, ${spec.origin.lng}` });
    if (spec.cita) body.horaCita = spec.cita.hora;
    if (spec.destination) Object.assign(body, { latitudDestino: spec.destination.lat, longitudDestino: spec.destination.lng, direccionDestino: 'DEMO destino del remolque' });
    if (telefono) {
      body.telefonoCliente = telefono;
      this.phones.set(uuid, telefono);
    }
    const postedAt = Date.now();
    const r = await api.call('POST', '/oferta', this.creds, body);
    if (r.status !== 200 || r.body.status !== true) {
      tally.fail('apiFailure', `POST /oferta (${spec.kind}): ${r.status} ${JSON.stringify(r.body)}`);
      return;
    }
    tally.add('offerPosted');
    tally.open.add(uuid);
    if (!this.deps.deadlines.has(uuid)) this.deps.deadlines.set(uuid, postedAt + this.deps.windowMs);
    if (spec.cita) tally.add('offerScheduled');
    if (spec.address) tally.add('offerByAddress');
    if (spec.kind === 'uncovered') tally.add('offerUncovered');
    for (const [i, stop] of spec.stops.entries()) {
      const s = await api.call('POST', '/add-address', this.creds, { uuid, latitud: stop.lat, longitud: stop.lng, direccion: `DEMO parada ${i + 1}`, puntoReferencia: 'DEMO' });
      if (s.status === 200) tally.add('stopAdded');
      else tally.fail('apiFailure', `POST /add-address: ${s.status} ${JSON.stringify(s.body)}`);
    }
  }

  /** A verified notification from this generator's receiver. */
  onNotification(n: Notification): void {
    const { tally } = this.deps;
    tally.add('webhookVerified');
    const uuid = String(n.body.id);
    if (n.path.endsWith('/aceptacion')) {
      tally.add('acceptanceReceived');
      tally.closed(uuid);
      const deadline = this.deps.deadlines.get(uuid);
      if (deadline !== undefined) tally.latenessMs.push(Math.max(0, n.arrivedAt - deadline));
      void this.confirm(uuid, String(n.body.dniTecnico));
      return;
    }
    tally.add('stateWebhookVerified');
    const estado = String(n.body.estado);
    this.states.set(estado, (this.states.get(estado) ?? 0) + 1);
    if (estado === 'SIN_RESPUESTA') {
      tally.add('sinRespuesta');
      tally.closed(uuid);
    }
    if (estado === 'EXPIRADA') tally.add('expirada');
    if (estado === 'INACTIVA') tally.closed(uuid);
    if (estado === 'EN_SITIO') {
      // the work on site takes a while, then the insurer closes the service
      setTimeout(() => void this.finalize(uuid), Math.max(100, this.deps.rnd.between(10_000, 20_000) / this.deps.speed));
    }
  }

  private async confirm(uuid: string, dniTecnico: string): Promise<void> {
    if (this.stopped) return;
    const { api, tally } = this.deps;
    const r = await api.call('POST', '/asignacion', this.creds, {
      uuid,
      observaciones: 'DEMO: asignación confirmada por el generador',
      ...(this.deps.placaOf(dniTecnico) ? { placa: this.deps.placaOf(dniTecnico) } : {}),
    });
    if (r.status !== 200 || r.body.status !== true) {
      tally.fail('apiFailure', `POST /asignacion: ${r.status} ${JSON.stringify(r.body)}`);
      return;
    }
    tally.add('assignment');
    this.active.add(uuid);
    const data = (r.body.data ?? {}) as Record<string, unknown>;
    const codigoServicio = String(r.body.codigoServicio ?? data.codigoServicio ?? uuid);
    this.deps.dispatch(dniTecnico, uuid);
    this.deps.onAssigned({ uuid, codigoServicio, telefono: this.phones.get(uuid), tecnico: dniTecnico });
  }

  /**
   * Services of this generator an earlier run left under way (stopped
   * mid-play, killed): finalized, as the insurer would close them, so their
   * technicians are free again (busy until the service ends, D16). Found with
   * the history query (POST /queries/history), the way an integrator finds them.
   */
  async finishLeftovers(line: string): Promise<number> {
    let done = 0;
    for (const estado of ['ASIGNADA', 'EN_CAMINO', 'EN_SITIO']) {
      for (let round = 0; round < 20; round++) {
        const r = await this.deps.api.call('POST', '/queries/history', this.creds, { line, estado, page: 1, pageSize: 100 });
        const records = r.status === 200 && Array.isArray(r.body.data) ? (r.body.data as Array<{ idServicio: string }>) : [];
        if (!records.length) break;
        let progress = 0;
        for (const rec of records) {
          const f = await this.deps.api.call('POST', '/finalize', this.creds, { uuid: rec.idServicio });
          if (f.status === 200) progress++;
        }
        done += progress;
        if (!progress) break;
      }
    }
    return done;
  }

  /** Its deliveries the service's own log (GET /webhooks/deliveries, D18) shows as failed since `since`. */
  async failedDeliveriesSince(since: number): Promise<number> {
    let failed = 0;
    for (let page = 1; page <= 10; page++) {
      const r = await this.deps.api.call('GET', `/webhooks/deliveries?estado=failed&page=${page}`, this.creds);
      const rows = ((r.body.data as { deliveries?: Array<{ creadaEn: string }> } | undefined)?.deliveries ?? []).filter((d) => Date.parse(d.creadaEn) >= since);
      failed += rows.length;
      // newest first: a page with older rows ends the search
      if (rows.length < 50) break;
    }
    return failed;
  }

  async finalize(uuid: string): Promise<void> {
    if (!this.active.has(uuid)) return;
    const r = await this.deps.api.call('POST', '/finalize', this.creds, { uuid });
    if (r.status === 200) {
      this.active.delete(uuid);
      this.deps.tally.add('finalizada');
    } else this.deps.tally.fail('apiFailure', `POST /finalize: ${r.status} ${JSON.stringify(r.body)}`);
  }
}
