/** PUT /posicion-tecnico {dniTecnico, latitud, longitud, disponible?} (D8): a central reports one of its technicians; envelope {status, data}. */
import { positionMessage, reportPosition } from '../../geo/positions.js';
import type { Runtime } from '../../domain/ports.js';
import { apiUserOf } from '../caller.js';
import { updatePosition } from '../openapi/operations.js';
import { route, type Route } from '../openapi/router.js';
import { positionBody } from '../presenters/positions.js';

export function positionRoutes(rt: Runtime): Route[] {
  return [
    route(
      updatePosition,
      async (ctx, input) => {
        await reportPosition(rt, apiUserOf(ctx), input);
        return positionBody();
      },
      { invalid: { message: positionMessage } },
    ),
  ];
}
