/**
 * Service operations after acceptance (spec 4.8, D6): POST /asignacion,
 * /no-asignacion, /cancelacion, /add-address and /asignacion-directa.
 */
import { confirmAssignment as confirm } from '../../domain/offers/operations/assignment.js';
import { cancelService as cancel } from '../../domain/offers/operations/cancellation.js';
import { assignDirectly as assign } from '../../domain/offers/operations/directAssignment.js';
import { addStop } from '../../domain/offers/operations/stops.js';
import { withdrawOffer as withdraw } from '../../domain/offers/operations/withdrawal.js';
import type { Runtime } from '../../domain/ports.js';
import { apiUserOf } from '../caller.js';
import { addAddress, assignDirectly, cancelService, confirmAssignment, withdrawOffer } from '../openapi/operations.js';
import { route, type Route } from '../openapi/router.js';
import { OPERATION_MESSAGES as M, assignedBody, cancelledBody, directBody, stopsBody, withdrawnBody } from '../presenters/operations.js';
import { directAssignmentMessage, fieldMessages } from '../schemas/operations.js';

const uuidMissing = (what: string) => ({ message: fieldMessages({ uuid: M.uuidMissing(what) }) });

export function operationRoutes(rt: Runtime): Route[] {
  return [
    route(confirmAssignment, async (ctx, input) => assignedBody(await confirm(rt, apiUserOf(ctx), input)), {
      invalid: uuidMissing('CONFIRMAR LA ASIGNACIÓN DEL SERVICIO'),
    }),
    route(
      withdrawOffer,
      async (ctx, input) => {
        await withdraw(rt, apiUserOf(ctx), input);
        return withdrawnBody();
      },
      { invalid: uuidMissing('REGISTRAR LA NO ASIGNACIÓN DEL SERVICIO') },
    ),
    route(cancelService, async (ctx, input) => cancelledBody(await cancel(rt, apiUserOf(ctx), input)), {
      invalid: uuidMissing('PROCESAR LA CANCELACIÓN DEL SERVICIO'),
    }),
    route(addAddress, async (ctx, input) => stopsBody(await addStop(rt, apiUserOf(ctx), input)), { invalid: uuidMissing('AGREGAR LA DIRECCIÓN') }),
    route(assignDirectly, async (ctx, input) => directBody(await assign(rt, apiUserOf(ctx), input)), { invalid: { message: directAssignmentMessage } }),
  ];
}
