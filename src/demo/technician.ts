/**
 * A technician's app: its own socket (technicianLink.ts), positions reported
 * as it drives (interpolated along a street-like route), offers answered
 * with varied arrival times (or not at all), the service's progress reported
 * over the socket (`progress`: EN_CAMINO, EN_SITIO), and the customer's chat
 * answered over HTTP. While free it drives around its central's area.
 */
import { randomUUID } from 'node:crypto';
import { along, distanceKm, offset, streetRoute, type Point } from './geo.js';
import type { ApiClient } from './http.js';
import type { TechnicianPlayer } from './plan.js';
import type { Random } from './random.js';
import type { Tally } from './tally.js';
import { connectTechnician, technicianCredentials, technicianToken, type Frame, type TechnicianIdentity, type TechnicianLink } from './technicianLink.js';

export interface TechnicianDeps {
  api: ApiClient;
  wsUrl: string;
  tally: Tally;
  rnd: Random;
  speed: number;
  /** the offer's deadline as the technician received it (for the lateness figure) */
  deadlines: Map<string, number>;
  log(line: string): void;
}

type Status = 'free' | 'answered' | 'driving' | 'onsite';

/** Seconds of demo time, at DEMO_SPEED. */
const scaled = (ms: number, speed: number) => Math.max(50, ms / speed);

export class TechnicianApp {
  private link?: TechnicianLink;
  private position: Point;
  private status: Status = 'free';
  private current?: string;
  private readonly origins = new Map<string, Point>();
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private wanderTarget?: Point;
  private identity?: TechnicianIdentity;

  constructor(
    readonly player: TechnicianPlayer,
    private readonly deps: TechnicianDeps,
  ) {
    this.position = player.start;
  }

  get busy(): boolean {
    return this.status !== 'free';
  }

  async start(): Promise<void> {
    this.identity = { dni: this.player.dni, token: await technicianToken(this.deps.api, this.player.central.apiKey, this.player.dni) };
    this.link = await connectTechnician(this.deps.wsUrl, this.identity);
    this.link.onEvent((f) => this.onFrame(f));
    await this.report();
    this.wander();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.link?.close();
  }

  /**
   * The service is confirmed for this technician: its central's dispatcher says so when POST /asignacion
   * answered 200 (run.ts), or the socket's `service.assigned` (D20) does, whichever comes first.
   */
  dispatch(uuid: string): void {
    if (this.stopped || (this.current === uuid && this.status !== 'answered')) return;
    const origin = this.origins.get(uuid);
    if (!origin) return;
    this.current = uuid;
    this.status = 'driving';
    clearTimeout(this.timer);
    void this.drive(uuid, origin);
  }

  private onFrame(f: Frame): void {
    const d = f.data;
    if (f.event === 'offer.new') return this.onOffer(d);
    if (f.event === 'chat.message') return void this.onChat(d);
    // D20's own events, once the service sends them: the service is this technician's (or no longer is)
    if (f.event === 'service.assigned' && d.estado === 'ASIGNADA') return this.dispatch(String(d.uuid));
    if (f.event === 'service.released' && d.uuid === this.current) return this.free();
    if (f.event === 'offer.closed' && d.uuid === this.current && this.status === 'answered' && d.result !== 'selected') return this.free();
    if (f.event === 'offer.state' && d.uuid === this.current) {
      const estado = String(d.estado);
      if (['SIN_RESPUESTA', 'EXPIRADA', 'INACTIVA', 'NO_ASIGNADA', 'CANCELADA', 'FINALIZADA'].includes(estado)) this.free();
      // assigned to somebody else: the dispatcher did not call within a moment
      if (estado === 'ASIGNADA' && this.status === 'answered') {
        setTimeout(() => {
          if (this.status === 'answered' && this.current === d.uuid) this.free();
        }, 3000);
      }
    }
  }

  private onOffer(d: Record<string, unknown>): void {
    const { tally, rnd } = this.deps;
    const uuid = String(d.uuid);
    tally.add('offerReceived');
    const origin = { lat: Number(d.latitudOrigen), lng: Number(d.longitudOrigen) };
    this.origins.set(uuid, origin);
    const deadline = Date.parse(String(d.deadline));
    if (Number.isFinite(deadline)) this.deps.deadlines.set(uuid, deadline);
    // a technician answers one offer at a time, and a far one less often (it would tie itself up for a long drive)
    const near = distanceKm(this.position, origin) <= 6;
    if (this.status !== 'free' || !rnd.chance(this.player.answers * (near ? 1 : 0.5))) {
      tally.add('notAnswered');
      return;
    }
    this.status = 'answered';
    this.current = uuid;
    // answer somewhere in the first two thirds of what is left of the window
    const left = Math.max(0, (Number.isFinite(deadline) ? deadline : Date.now() + 1000) - Date.now());
    setTimeout(() => void this.answer(uuid, origin), left * rnd.between(0.1, 0.6));
    // no news of that offer long after its window (a lost event, an assignment never confirmed): free again
    setTimeout(() => {
      if (this.status === 'answered' && this.current === uuid) this.free();
    }, left + Math.max(10_000, 60_000 / this.deps.speed));
  }

  private async answer(uuid: string, origin: Point): Promise<void> {
    if (this.stopped || this.current !== uuid) return;
    const { rnd, tally } = this.deps;
    const km = distanceKm(this.position, origin);
    const data: Record<string, unknown> = { id: uuid, latitudTecnico: this.position.lat, longitudTecnico: this.position.lng };
    // most give a time (driving at ~25 km/h plus what they are finishing); some leave it to the service's estimate (D2)
    if (rnd.chance(0.85)) data.tiempoLlegadaSitio = Math.max(3, Math.round((km / 25) * 60 + rnd.between(0, 12)));
    try {
      const r = await this.link!.request('offer.respond', data);
      if (r.status === 200) tally.add('response');
      else {
        tally.add('responseRefused');
        if (this.current === uuid && this.status === 'answered') this.free();
      }
    } catch (err) {
      tally.fail('apiFailure', `offer.respond by ${this.player.dni}: ${(err as Error).message}`);
      this.free();
    }
  }

  private async drive(uuid: string, origin: Point): Promise<void> {
    const { rnd, speed } = this.deps;
    if (!(await this.progress(uuid, 'EN_CAMINO'))) return this.free();
    const route = streetRoute(this.position, origin, rnd.next());
    const duration = scaled(rnd.between(20_000, 40_000), speed);
    const tick = scaled(2000, speed);
    const begun = Date.now();
    while (!this.stopped && this.current === uuid) {
      const f = Math.min(1, (Date.now() - begun) / duration);
      this.position = along(route, f);
      await this.report();
      if (f >= 1) break;
      await new Promise((r) => setTimeout(r, Math.max(250, tick)));
    }
    if (this.stopped || this.current !== uuid) return;
    if (await this.progress(uuid, 'EN_SITIO')) {
      this.status = 'onsite';
      // the generator finalizes once the work is done; FINALIZADA frees the technician (offer.state)
    } else {
      this.free();
    }
  }

  private async progress(uuid: string, estado: 'EN_CAMINO' | 'EN_SITIO'): Promise<boolean> {
    try {
      const r = await this.link!.request('progress', { id: uuid, estado, latitudTecnico: this.position.lat, longitudTecnico: this.position.lng });
      if (r.status === 200) {
        this.deps.tally.add(estado === 'EN_CAMINO' ? 'enCamino' : 'enSitio');
        return true;
      }
      this.deps.tally.fail('apiFailure', `progress ${estado} of ${uuid}: ${r.status} ${JSON.stringify(r.body)}`);
    } catch (err) {
      if (!this.stopped) this.deps.tally.fail('apiFailure', `progress ${estado} of ${uuid}: ${(err as Error).message}`);
    }
    return false;
  }

  private async report(): Promise<void> {
    if (this.stopped || !this.link) return;
    try {
      const r = await this.link.request('position', { latitud: this.position.lat, longitud: this.position.lng });
      if (r.status === 200) this.deps.tally.add('positionReported');
      else this.deps.tally.fail('apiFailure', `position of ${this.player.dni}: ${r.status} ${JSON.stringify(r.body)}`);
    } catch (err) {
      if (!this.stopped) this.deps.tally.fail('apiFailure', `position of ${this.player.dni}: ${(err as Error).message}`);
    }
  }

  private free(): void {
    this.status = 'free';
    this.current = undefined;
    this.wander();
  }

  /** While free: a few hundred metres at a time toward a point of its central's area, reported every ~10 s. */
  private wander(): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const { rnd, speed } = this.deps;
    this.timer = setTimeout(
      () => {
        if (this.status !== 'free' || this.stopped) return;
        const c = this.player.central;
        if (!this.wanderTarget || distanceKm(this.position, this.wanderTarget) < 0.3) {
          this.wanderTarget = offset(c.center, c.radiusKm * 0.7 * Math.sqrt(rnd.next()), rnd.between(0, 360));
        }
        const f = Math.min(1, 0.4 / Math.max(0.001, distanceKm(this.position, this.wanderTarget)));
        this.position = along([this.position, this.wanderTarget], f);
        void this.report().then(() => this.wander());
      },
      Math.max(1000, scaled(10_000, speed)),
    );
  }

  /** The customer wrote: the technician answers once per message, as a person would. */
  private async onChat(d: Record<string, unknown>): Promise<void> {
    const message = d.message as { autor?: string; id?: number } | undefined;
    if (message?.autor !== 'cliente') return;
    const { api, tally } = this.deps;
    tally.add('chatReceived');
    const expediente = String(d.expediente);
    const texto = this.status === 'onsite' ? 'Ya estoy en el sitio, ¿dónde lo encuentro?' : 'Hola, voy en camino. Le escribo al llegar.';
    try {
      const r = await api.call('POST', `/chat/${encodeURIComponent(expediente)}/messages`, technicianCredentials(this.identity!), { texto, clientId: randomUUID() }, { signed: true });
      if (r.status === 200) tally.add('chatSent');
      else tally.fail('apiFailure', `technician chat: ${r.status} ${JSON.stringify(r.body)}`);
      if (message.id) await api.call('PUT', `/chat/${encodeURIComponent(expediente)}/read`, technicianCredentials(this.identity!), { hasta: message.id }, { signed: true });
    } catch (err) {
      tally.fail('apiFailure', `technician chat: ${(err as Error).message}`);
    }
  }
}
