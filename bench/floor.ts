/**
 * What issue 12 compares the service with: a 1 KB offer like the spec's, and
 * the floor, the minimal honest offer endpoint (Koa + koa-bodyparser + one
 * INSERT of the offer, uuid key and jsonb body, through a pg Pool of 10 + one
 * BullMQ `add` delayed 30 s with jobId = uuid, in one Node process). Shared by
 * bench/auction.ts and bench/api-cost.ts.
 */
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const BOGOTA = { lat: 4.6533, lng: -74.0836 };

/** A 1 KB offer like the spec's (2.1), uuid set per request. */
export function offerTemplate(): Record<string, unknown> {
  return {
    uuid: '00000000-0000-4000-8000-000000000000',
    tipoServicio: '1',
    latitudOrigen: BOGOTA.lat,
    longitudOrigen: BOGOTA.lng,
    direccionOrigen: 'Calle 72 # 10-34, Chapinero',
    puntoReferenciaOrigen: 'Frente al centro comercial, costado norte de la calle',
    ciudad: 'Bogotá',
    departamento: 'Cundinamarca',
    direccionDestino: 'Avenida Carrera 68 # 13-45, Puente Aranda',
    latitudDestino: 4.6189,
    longitudDestino: -74.1157,
    puntoReferenciaDestino: 'Taller autorizado de la marca, entrada por la calle 13',
    descripcionServicio: 'GRUA',
    fechaCita: '',
    guardian: 'NO',
    ofertante: 'Aseguradora Andina S.A.',
    subOfertante: 'Asistencia Vehicular',
    internal: 123456,
    global: 654321,
    vehiculo: { marca: 'RENAULT', linea: 'LOGAN', detalleLinea: 'EXPRESSION 1.6', modelo: '2019', tipoCombustible: 'GASOLINA', blindaje: 'NO' },
    observaciones:
      'Vehículo varado con llanta pinchada y batería descargada; el conductor espera en el sitio con las luces de parqueo ' +
      'encendidas. Acceso por la calzada lenta, sin restricción de altura. El asegurado pide confirmar el tiempo de llegada ' +
      'por teléfono antes de salir y presentar la orden de servicio al llegar. Póliza vigente, cobertura total.',
  };
}

export async function startFloor(dbUrl: string, redisUrl: string, prefix: string, port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: dbUrl, max: 10 });
  await pool.query(`create table if not exists floor_offer (uuid uuid primary key, body jsonb not null)`);
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue('floor-evaluation', { connection, prefix });
  const app = new Koa();
  app.use(bodyParser());
  app.use(async (ctx) => {
    const body = ctx.request.body as { uuid: string };
    await pool.query(`insert into floor_offer (uuid, body) values ($1, $2)`, [body.uuid, body]);
    await queue.add('evaluate', { offerUuid: body.uuid }, { delay: 30_000, jobId: body.uuid });
    ctx.body = { status: true, msg: 'OFERTA RECIBIDA' };
  });
  const server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      connection.disconnect(); // a connection given to BullMQ is the giver's to close
      await pool.end();
    },
  };
}
