/**
 * The demo's market plan: who plays (read from the provisioning document,
 * config/demo-market.json) and which offers the generators post, in what order.
 * The first offers go through every kind once (immediate, scheduled, with
 * stops, outside every coverage, by address), so even a short run shows each;
 * after that the kinds are drawn at random.
 */
import { readFile } from 'node:fs/promises';
import { distanceKm, offset, type Point } from './geo.js';
import type { Random } from './random.js';

interface DocApiUser {
  username: string;
  password: string;
  businessName: string;
  nit: string;
  apiKey?: string;
  urlApi?: string;
  webhookSecret?: string;
  apiEndpoint?: Record<string, string>;
}

export interface MarketDocument {
  serviceTypes: Array<{ id: number; type: string }>;
  apiUsers: DocApiUser[];
  centrals: Array<{ nit: string; name: string; apiUser: string; serviceTypes: number[]; coverage: { center: Point; radiusKm: number } }>;
  technicians: Array<{ dni: string; central: string; names: string; identifier: string; position: Point; serviceTypes: number[] }>;
  operators: Array<{ username: string; password: string }>;
  gazetteer: Array<{ address: string; lat: number; lng: number }>;
  [key: string]: unknown;
}

export interface GeneratorPlayer {
  username: string;
  password: string;
  name: string;
  secret: string;
}

export interface CentralPlayer {
  nit: string;
  name: string;
  apiKey: string;
  center: Point;
  radiusKm: number;
  serviceTypes: number[];
}

export interface TechnicianPlayer {
  dni: string;
  names: string;
  identifier: string;
  central: CentralPlayer;
  start: Point;
  /** a vehicle plate the central gives the generator with the assignment */
  placa: string;
  /** chance of answering an offer it receives; 0: this one never answers */
  answers: number;
}

export interface Market {
  document: MarketDocument;
  generators: GeneratorPlayer[];
  centrals: CentralPlayer[];
  technicians: TechnicianPlayer[];
  operator: { username: string; password: string };
  addresses: Array<{ address: string; point: Point }>;
  typeNames: Map<number, string>;
}

export async function readMarket(path: string): Promise<Market> {
  const document = JSON.parse(await readFile(path, 'utf8')) as MarketDocument;
  const users = new Map(document.apiUsers.map((u) => [u.username, u]));
  const centrals: CentralPlayer[] = document.centrals.map((c) => ({
    nit: c.nit,
    name: c.name,
    apiKey: users.get(c.apiUser)!.apiKey!,
    center: c.coverage.center,
    radiusKm: c.coverage.radiusKm,
    serviceTypes: c.serviceTypes,
  }));
  const byNit = new Map(centrals.map((c) => [c.nit, c]));
  const centralNits = new Set(centrals.map((c) => c.nit));
  const generators = document.apiUsers
    .filter((u) => u.webhookSecret && !centralNits.has(u.nit))
    .map((u) => ({ username: u.username, password: u.password, name: u.businessName, secret: u.webhookSecret! }));
  const technicians = document.technicians.map((t, i) => ({
    dni: t.dni,
    names: t.names,
    identifier: t.identifier,
    central: byNit.get(t.central)!,
    start: t.position,
    placa: `DMO${String(101 + i).padStart(3, '0')}`,
    // the last technician of each central never answers; the others answer most offers
    answers: document.technicians[i + 1]?.central === t.central ? 0.8 : 0,
  }));
  return {
    document,
    generators,
    centrals,
    technicians,
    operator: document.operators[0],
    addresses: document.gazetteer.map((g) => ({ address: g.address, point: { lat: g.lat, lng: g.lng } })),
    typeNames: new Map(document.serviceTypes.map((t) => [t.id, t.type])),
  };
}

export type OfferKind = 'immediate' | 'scheduled' | 'stops' | 'uncovered' | 'address';

export interface OfferSpec {
  kind: OfferKind;
  generator: GeneratorPlayer;
  tipoServicio: number;
  origin: Point;
  /** sent as direccionOrigen instead of coordinates (geocoded by the service's gazetteer) */
  address?: string;
  destination?: Point;
  /** Bogotá wall-clock date and time, for a scheduled offer */
  cita?: { fecha: string; hora: string };
  stops: Point[];
}

const FIRST_KINDS: readonly OfferKind[] = ['immediate', 'scheduled', 'stops', 'uncovered', 'address', 'immediate'];
const LATER_KINDS: readonly OfferKind[] = ['immediate', 'immediate', 'immediate', 'scheduled', 'stops', 'uncovered', 'address'];

/** A point inside one central's coverage, and a service type that central serves. */
function coveredPlace(market: Market, rnd: Random): { point: Point; tipo: number } {
  const c = rnd.pick(market.centrals);
  const point = offset(c.center, c.radiusKm * 0.8 * Math.sqrt(rnd.next()), rnd.between(0, 360));
  return { point, tipo: rnd.pick(c.serviceTypes) };
}

/** A point 40–60 km from the market, outside every central's coverage. */
function uncoveredPlace(market: Market, rnd: Random): Point {
  const center = market.centrals[0].center;
  for (;;) {
    const p = offset(center, rnd.between(40, 60), rnd.between(0, 360));
    if (market.centrals.every((c) => distanceKm(p, c.center) > c.radiusKm + 5)) return p;
  }
}

/** A date and time in Colombia (America/Bogotá, spec 2.1's fechaCita/horaCita) `minutes` from now. */
export function bogotaWallClock(minutes: number, now = Date.now()): { fecha: string; hora: string } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Bogota',
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(new Date(now + minutes * 60_000));
  const get = (t: string) => parts.find((p) => p.type === t)!.value;
  return { fecha: `${get('year')}-${get('month')}-${get('day')}`, hora: `${get('hour')}:${get('minute')}` };
}

/** The n-th offer of the run (n from 0). */
export function offerAt(market: Market, rnd: Random, n: number): OfferSpec {
  const kind = n < FIRST_KINDS.length ? FIRST_KINDS[n] : rnd.pick(LATER_KINDS);
  const generator = market.generators[n % market.generators.length];
  const covered = coveredPlace(market, rnd);
  const spec: OfferSpec = { kind, generator, tipoServicio: covered.tipo, origin: covered.point, stops: [] };
  if (kind === 'uncovered') spec.origin = uncoveredPlace(market, rnd);
  if (kind === 'address') {
    const a = rnd.pick(market.addresses);
    spec.origin = a.point;
    spec.address = a.address;
    // a type some central covering that address serves
    const near = market.centrals.filter((c) => distanceKm(a.point, c.center) <= c.radiusKm);
    spec.tipoServicio = rnd.pick((near.length ? near : market.centrals).flatMap((c) => c.serviceTypes));
  }
  if (kind === 'scheduled') spec.cita = bogotaWallClock(rnd.int(60, 240));
  if (kind === 'stops') spec.stops = Array.from({ length: rnd.int(1, 2) }, () => offset(spec.origin, rnd.between(1, 4), rnd.between(0, 360)));
  // a tow goes somewhere: its destination 2–8 km away
  if (market.typeNames.get(spec.tipoServicio)?.includes('GRÚA')) spec.destination = offset(spec.origin, rnd.between(2, 8), rnd.between(0, 360));
  return spec;
}
