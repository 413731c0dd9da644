/**
 * Service operations after acceptance (spec 4.8, D6): POST /asignacion,
 * /no-asignacion, /cancelacion, /add-address and /asignacion-directa.
 */
import Router from '@koa/router';
import { confirmAssignment } from '../../domain/offers/operations/assignment.js';
import { cancelService } from '../../domain/offers/operations/cancellation.js';
import { assignDirectly } from '../../domain/offers/operations/directAssignment.js';
import { addStop } from '../../domain/offers/operations/stops.js';
import { withdrawOffer } from '../../domain/offers/operations/withdrawal.js';
import type { Runtime } from '../../main/runtime.js';
import { basicAuth } from '../auth/index.js';
import { apiUserOf } from '../caller.js';
import type { AppState } from '../context.js';
import { failureMessage } from '../middleware/failure.js';
import {
  OPERATION_MESSAGES as M,
  assignedBody,
  cancelledBody,
  directBody,
  stopsBody,
  withdrawnBody,
} from '../presenters/operations.js';
import {
  assignmentSchema,
  directAssignmentMessage,
  directAssignmentSchema,
  fieldMessages,
  stopSchema,
  withdrawalSchema,
} from '../schemas/operations.js';
import { validateBody } from '../validation.js';

export function operationRoutes(rt: Runtime): Router<AppState> {
  const router = new Router<AppState>();
  const em = () => rt.orm.em;

  router.post('/asignacion', failureMessage(rt.log, M.assignmentFailed), basicAuth(em, '/asignacion'), async (ctx) => {
    const body = validateBody(assignmentSchema, ctx.request.body, fieldMessages({ uuid: M.uuidMissing('CONFIRMAR LA ASIGNACIÓN DEL SERVICIO') }));
    ctx.body = assignedBody(await confirmAssignment(rt, apiUserOf(ctx), body));
  });

  router.post('/no-asignacion', failureMessage(rt.log, M.withdrawalFailed), basicAuth(em, '/no-asignacion'), async (ctx) => {
    const body = validateBody(withdrawalSchema, ctx.request.body, fieldMessages({ uuid: M.uuidMissing('REGISTRAR LA NO ASIGNACIÓN DEL SERVICIO') }));
    await withdrawOffer(rt, apiUserOf(ctx), body);
    ctx.body = withdrawnBody();
  });

  router.post('/cancelacion', failureMessage(rt.log, M.cancellationFailed), basicAuth(em, '/cancelacion'), async (ctx) => {
    const body = validateBody(withdrawalSchema, ctx.request.body, fieldMessages({ uuid: M.uuidMissing('PROCESAR LA CANCELACIÓN DEL SERVICIO') }));
    ctx.body = cancelledBody(await cancelService(rt, apiUserOf(ctx), body));
  });

  router.post('/add-address', failureMessage(rt.log, M.stopFailed), basicAuth(em, '/add-address'), async (ctx) => {
    const body = validateBody(stopSchema, ctx.request.body, fieldMessages({ uuid: M.uuidMissing('AGREGAR LA DIRECCIÓN') }));
    ctx.body = stopsBody(await addStop(rt, apiUserOf(ctx), body));
  });

  router.post('/asignacion-directa', failureMessage(rt.log, M.directFailed), basicAuth(em, '/asignacion-directa'), async (ctx) => {
    const body = validateBody(directAssignmentSchema, ctx.request.body, directAssignmentMessage);
    ctx.body = directBody(await assignDirectly(rt, apiUserOf(ctx), body));
  });

  return router;
}
