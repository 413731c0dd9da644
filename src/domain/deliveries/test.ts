/**
 * A test notification (D23): one signed sample of a kind of notification sent
 * to the caller's own endpoint for it, marked `x-prueba: true` and
 * `prueba: true`, kept in the delivery log (D18) as a delivery of kind `test`
 * about no offer, and its answer returned. It changes nothing else: no offer,
 * no state, no retry (a receiver tries again by asking again).
 */
import { randomUUID } from 'node:crypto';
import type { ApiEndpointMap, ApiUser } from '../../db/entities/index.js';
import { claimedAtWrite, deliveryRow, insertDeliveries } from '../../db/stores/deliveries.js';
import { profileEndpoint, recordAttempts, sendDelivery } from '../../webhooks/dispatch.js';
import { DomainError } from '../errors.js';
import type { Runtime } from '../ports.js';

/** The kinds of notification a test can imitate: the keys of the profile's `api_endpoint` map. */
export const TEST_KINDS = ['respuesta', 'estado', 'novedad', 'oferta'] as const;
export type TestKind = (typeof TEST_KINDS)[number];

export interface TestOutcome {
  tipo: TestKind;
  url: string;
  deliveryId: string;
  eventId: string;
  /** the receiver's status, null when none arrived */
  statusCode: number | null;
  latenciaMs: number;
  /** exactly 200: what the acceptance notification needs to be taken (spec 6.1) */
  ok: boolean;
  /** why no answer arrived (timeout, refused connection, refused target) */
  error: string | null;
}

/** A sample body of each kind, shaped as the real one (document/webhooks.ts), marked `prueba: true`. */
export function sampleBody(tipo: TestKind, now = new Date()): Record<string, unknown> {
  const id = randomUUID();
  const fecha = now.toISOString();
  switch (tipo) {
    case 'respuesta':
      return {
        id,
        idGestor: '1',
        dniGestor: '1020304050',
        dniPrestador: '901555111',
        nombrePrestador: 'Grúas Andinas',
        telefonoCentral: '+576015550100',
        latitudTecnico: '4.6761',
        longitudTecnico: '-74.0483',
        identificadorTecnico: 'GA-07',
        dniTecnico: '1020304050',
        telefonoTecnico: '+573001112233',
        tarifaEstimadaServicio: '0',
        tiempoLlegadaSitio: 12,
        prueba: true,
      };
    case 'estado':
      return { id, estado: 'EN_CAMINO', fecha, detalle: 'EL TÉCNICO VA EN CAMINO (NOTIFICACIÓN DE PRUEBA)', codigoServicio: 'SV-PRUEBA', prueba: true };
    case 'novedad':
      return { id, estado: 'NO_ASIGNADA', fecha, detalle: 'LA OFERTA NO FUE ASIGNADA A SU CENTRAL (NOTIFICACIÓN DE PRUEBA)', prueba: true };
    case 'oferta':
      return {
        uuid: id,
        tipoServicio: 1,
        descripcionServicio: 'GRUA (NOTIFICACIÓN DE PRUEBA)',
        latitudOrigen: 4.6847,
        longitudOrigen: -74.0469,
        direccionOrigen: 'Calle 100 # 15-20, Bogotá',
        puntoReferenciaOrigen: 'Frente al centro comercial',
        ciudad: 'Bogotá',
        departamento: 'Cundinamarca',
        direccionDestino: 'Carrera 7 # 72-41, Bogotá',
        puntoReferenciaDestino: null,
        latitudDestino: 4.6553,
        longitudDestino: -74.0567,
        observaciones: null,
        fechaCita: null,
        horaCita: null,
        deadline: new Date(now.getTime() + 30_000).toISOString(),
        tecnicosCercanos: [{ dniTecnico: '1020304050', distance: 2.4 }],
        prueba: true,
      };
  }
}

/** The URL a notification of `tipo` goes to, or the refusal naming what the profile lacks. */
export function testEndpoint(user: Pick<ApiUser, 'urlApi' | 'apiEndpoint'>, tipo: TestKind): string {
  if (!user.apiEndpoint?.[tipo as keyof ApiEndpointMap]?.trim()) throw new DomainError('webhook-test.endpoint-missing', { tipo, key: `api_endpoint.${tipo}` });
  const url = profileEndpoint(user, tipo);
  if (!url) throw new DomainError('webhook-test.endpoint-missing', { tipo, key: 'url_api' });
  return url;
}

/** Sends the sample once, records it (row and attempt) and answers what the receiver did. */
export async function sendTestNotification(rt: Pick<Runtime, 'orm' | 'config' | 'log'>, user: ApiUser, tipo: TestKind): Promise<TestOutcome> {
  const url = testEndpoint(user, tipo);
  const row = deliveryRow<string | null, number>({ offer: null, kind: 'test', receiver: user.id, url, body: sampleBody(tipo), eventHeader: tipo !== 'respuesta' });
  (row.requestHeaders as Record<string, string>)['x-prueba'] = 'true';
  const { row: claimedRow, claimed } = claimedAtWrite(row, { apiKey: user.outboundKey ?? null, secret: user.webhookSecret ?? null });
  const em = rt.orm.em.fork();
  await insertDeliveries(em, [claimedRow]);
  const sent = await sendDelivery(claimed, rt.config, (o) => (o.ok ? 'ok' : 'failed'));
  await recordAttempts(em, [sent]);
  rt.log.info({ deliveryId: row.id, receiver: user.username, tipo, statusCode: sent.outcome.statusCode }, 'test notification sent');
  return {
    tipo,
    url,
    deliveryId: row.id,
    eventId: row.eventId,
    statusCode: sent.outcome.statusCode,
    latenciaMs: sent.outcome.latencyMs,
    ok: sent.outcome.statusCode === 200,
    error: sent.outcome.error,
  };
}
