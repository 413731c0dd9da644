/** GET /webhooks/deliveries (D18): the calling API user's own deliveries and their attempts. */
import type { ErrorObject } from 'ajv';
import { receiverDeliveries } from '../../domain/deliveries/log.js';
import type { Runtime } from '../../domain/ports.js';
import { apiUserOf } from '../caller.js';
import { listWebhookDeliveries } from '../openapi/deliveries.js';
import { route, type Route } from '../openapi/router.js';

const MESSAGES: Record<string, string> = {
  uuid: "EL PARÁMETRO 'uuid' DEBE SER UN UUID VÁLIDO",
  estado: "EL PARÁMETRO 'estado' DEBE SER pending, sending, ok O failed",
  page: "EL PARÁMETRO 'page' DEBE SER UN ENTERO POSITIVO",
};

const message = (e: ErrorObject) => MESSAGES[e.instancePath.slice(1)] ?? 'SOLICITUD INVÁLIDA';

export function deliveryRoutes(rt: Runtime): Route[] {
  return [
    route(
      listWebhookDeliveries,
      async (ctx, input) => ({
        status: true,
        msg: 'ENTREGAS DE WEBHOOKS',
        data: await receiverDeliveries(rt.orm.em.fork(), apiUserOf(ctx).id, {
          uuid: input.uuid?.toLowerCase(),
          estado: input.estado,
          page: input.page === undefined ? 1 : Number(input.page),
        }),
      }),
      { invalid: { message } },
    ),
  ];
}
