/**
 * Helpers for the service-operations tests: the common start of a suite, a
 * generator with its state endpoint, a central with its API key and novelty
 * endpoint, a technician, offers in any state and a listener of the real-time bus.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Redis } from 'ioredis';
import { OfferResponse, WebhookDelivery, type ApiUser, type Central, type Offer, type Technician } from '../../src/db/entities/index.js';
import type { OfferState } from '../../src/domain/offers/lifecycle/states.js';
import { busChannel, perTechnician, type BusMessage } from '../../src/realtime/bus.js';
import { resetDb } from './db.js';
import { startApp, startCleanApp, type StartOptions, type TestApp } from './harness.js';
import { makeApiUser, makeBusinessLine, makeCentral, makeGenerator, makeOffer, makeServiceType, makeTechnician, WITH_STATE_ENDPOINT, type Generator } from './factories.js';

export { GENERATOR_URL } from './factories.js';
export const CENTRAL_URL = 'http://central.test';

export type Body = Record<string, unknown>;

/** A JSON response body as an object. */
export const bodyOf = (res: { body: unknown }): Body => res.body as Body;

/** Service type 1 (GRUA) in business line VEH, and type 2 (CONDUCTOR) in line MOV. */
export async function makeCatalog(em: EntityManager): Promise<void> {
  const veh = await makeBusinessLine(em, { code: 'VEH', name: 'ASISTENCIA VEHICULAR' });
  const mov = await makeBusinessLine(em, { code: 'MOV', name: 'MOVILIDAD' });
  await makeServiceType(em, { id: 1, type: 'GRUA', line: veh });
  await makeServiceType(em, { id: 2, type: 'CONDUCTOR ELEGIDO', line: mov });
}

export { makeGenerator, WITH_STATE_ENDPOINT, type Generator } from './factories.js';

export interface Provider {
  user: ApiUser;
  apiKey: string;
  /** the x-apikey our webhooks to it carry (D24: its own secret) */
  outboundKey: string;
  central: Central;
  technician: Technician;
}

/** A central with its API user (x-apikey, novelty endpoint under CENTRAL_URL/<path>) and one technician. */
export interface ProviderOptions {
  name?: string;
  novedad?: string | null;
  secret?: string;
}

export async function makeProvider(em: EntityManager, o: ProviderOptions = {}): Promise<Provider> {
  const apiKey = `key-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const { user } = await makeApiUser(em, {
    businessName: o.name ?? 'Grúas de Prueba S.A.S.',
    apiKey,
    outboundKey: `outbound-${apiKey}`,
    urlApi: CENTRAL_URL,
    apiEndpoint: o.novedad === null ? {} : { novedad: o.novedad ?? '/novedad' },
    webhookSecret: o.secret ?? null,
  });
  const central = await makeCentral(em, { name: o.name ?? 'Grúas de Prueba', apiUser: user, serviceTypes: [1, 2] });
  const technician = await makeTechnician(em, central);
  return { user, apiKey, outboundKey: `outbound-${apiKey}`, central, technician };
}

export interface OpsSuite {
  app: TestApp;
  /** a context of its own, for the suite's further rows */
  em: EntityManager;
  gen: Generator;
  /** another generator, owning nothing of `gen`'s */
  other: Generator;
  prov: Provider;
}

/** An app (with workers when asked) on a clean database holding the catalog, two generators and a provider. */
export async function startOps(
  o: StartOptions & { generator?: Partial<ApiUser>; provider?: ProviderOptions } = {},
): Promise<OpsSuite> {
  // with workers: started only once the database and the queues are clean (a worker running another suite's
  // leftover job while the database is truncated deadlocked the truncate)
  const app = o.workers ? await startCleanApp(o) : await startApp(o);
  if (!o.workers) await resetDb(app.rt.orm);
  const em = app.rt.orm.em.fork();
  await makeCatalog(em);
  const gen = await makeGenerator(em, { ...WITH_STATE_ENDPOINT, ...o.generator });
  const other = await makeGenerator(em, WITH_STATE_ENDPOINT);
  const prov = await makeProvider(em, o.provider);
  return { app, em, gen, other, prov };
}

/** An offer of `generator` in `state`, assigned to the provider when given. */
export async function offerIn(
  em: EntityManager,
  generator: Generator,
  state: OfferState,
  provider?: Provider,
  o: Partial<Omit<Offer, 'generator'>> = {},
): Promise<Offer> {
  return makeOffer(em, generator.user, {
    state,
    assignedCentral: provider?.central ?? null,
    assignedTechnician: provider?.technician ?? null,
    ...o,
  });
}

/** A response of the provider to the offer (as PUT /aceptacion would record it). */
export async function respond(em: EntityManager, offer: Offer, provider: Provider): Promise<OfferResponse> {
  const r = em.create(OfferResponse, {
    offer,
    central: provider.central,
    technician: provider.technician,
    distanceKm: 2,
    timeMin: 6,
    timeGiven: true,
    rate: 4.5,
    techLat: null,
    techLng: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  await em.flush();
  return r;
}

export interface BusListener {
  messages: BusMessage[];
  close(): void;
}

/** Collects every real-time event published under `prefix`. */
export async function listenBus(redisUrl: string, prefix: string): Promise<BusListener> {
  const sub = new Redis(redisUrl);
  const messages: BusMessage[] = [];
  // a distribution's one `technicians` message counts as the per-technician events it stands for
  sub.on('message', (_channel: string, raw: string) => messages.push(...perTechnician(JSON.parse(raw) as BusMessage)));
  await sub.subscribe(busChannel(prefix));
  return { messages, close: () => sub.disconnect() };
}

/** The deliveries of an offer in the order they were planned (seq). */
export async function deliveriesOf(em: EntityManager, offerUuid: string): Promise<WebhookDelivery[]> {
  const fork = em.fork();
  const order = await fork.execute<Array<{ id: string }>>(`select id from webhook_delivery where offer_uuid = ? order by seq`, [offerUuid]);
  const rows = await fork.find(WebhookDelivery, { id: order.map((r) => r.id) });
  return order.map((r) => rows.find((d) => d.id === r.id) as WebhookDelivery);
}
