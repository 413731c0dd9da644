/** Bodies of the service operations' answers (spec 4.4, 4.6, 4.7, 4.8). */
import type { HistoryOptions } from '../../domain/history/options.js';
import { HISTORY_MESSAGES, type HistoryPage } from '../../domain/history/history.js';
import type { AssignmentResult } from '../../domain/offers/operations/assignment.js';
import { DIRECT_MESSAGES, type DirectAssignmentResult } from '../../domain/offers/operations/directAssignment.js';
import { FINALIZE_MESSAGES } from '../../domain/offers/operations/finalize.js';
import { STOP_MESSAGES } from '../../domain/offers/operations/stops.js';
import type { Stop } from '../../db/entities/index.js';

export const OPERATION_MESSAGES = {
  assigned: (central: string) => `SE HA CONFIRMADO LA ASIGNACIÓN DEL SERVICIO A LA CENTRAL ${central}`,
  withdrawn: 'SE HA RECIBIDO EXITOSAMENTE LA NO ASIGNACIÓN DEL SERVICIO',
  cancelled: (central: string) => `SE HA CANCELADO EXITOSAMENTE EL SERVICIO ASIGNADO A LA CENTRAL ${central}`,
  assignmentFailed: 'OCURRIÓ UN ERROR AL PROCESAR LA ASIGNACIÓN DEL SERVICIO',
  withdrawalFailed: 'OCURRIÓ UN ERROR AL PROCESAR LA NO ASIGNACIÓN DEL SERVICIO',
  cancellationFailed: 'OCURRIÓ UN ERROR AL PROCESAR LA CANCELACIÓN DEL SERVICIO',
  stopFailed: 'OCURRIÓ UN ERROR AL AGREGAR LA DIRECCIÓN DEL SERVICIO',
  directFailed: 'OCURRIÓ UN ERROR AL PROCESAR LA ASIGNACIÓN DIRECTA DEL SERVICIO',
  historyFailed: 'Ocurrió un error al obtener los datos.',
  uuidMissing: (what: string) => `NO SE RECIBIÓ EL CAMPO 'uuid', REQUERIDO PARA ${what}`,
} as const;

export const assignedBody = (r: AssignmentResult) => ({
  status: true,
  msg: OPERATION_MESSAGES.assigned(r.centralName),
  codigoServicio: r.codigoServicio,
});

export const withdrawnBody = () => ({ status: true, msg: OPERATION_MESSAGES.withdrawn });

export const cancelledBody = (r: { centralName: string }) => ({ status: true, msg: OPERATION_MESSAGES.cancelled(r.centralName) });

export const finalizedBody = () => ({ status: true, msg: FINALIZE_MESSAGES.ok });

export const stopsBody = (r: { stops: Stop[] }) => ({ status: true, msg: STOP_MESSAGES.ok, data: { stops: r.stops } });

export const directBody = (r: DirectAssignmentResult) => ({
  status: true,
  msg: DIRECT_MESSAGES.ok(r.centralName),
  codigoServicio: r.codigoServicio,
  codigoSolicitud: r.codigoSolicitud,
});

export const historyBody = (p: HistoryPage) => ({
  status: true,
  data: p.records,
  msg: HISTORY_MESSAGES.ok,
  pagination: p.pagination,
});

export const historyOptionsBody = (o: HistoryOptions) => ({ status: true, data: o });
