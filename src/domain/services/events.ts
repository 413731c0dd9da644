/**
 * A technician's service events (D20), one shape wherever they start: the
 * selection, an assignment, a change of technician, a reconnecting socket.
 * - `service.assigned` {uuid, codigoServicio, estado, servicio}: the service is
 *   this technician's to do;
 * - `service.released` {uuid, codigoServicio, motivo}: it no longer is.
 */
import type { BusMessage } from '../ports.js';
import type { Servicio } from './servicio.js';

export const SERVICE_EVENTS = { assigned: 'service.assigned', released: 'service.released' } as const;

export function serviceAssigned(technicianId: number, estado: string, s: Servicio): BusMessage {
  return {
    audience: { kind: 'technician', technicianId },
    event: SERVICE_EVENTS.assigned,
    data: { uuid: s.uuid, codigoServicio: s.codigoServicio, estado, servicio: s },
  };
}

export function serviceReleased(technicianId: number, uuid: string, codigoServicio: string | null, motivo: string): BusMessage {
  return { audience: { kind: 'technician', technicianId }, event: SERVICE_EVENTS.released, data: { uuid, codigoServicio, motivo } };
}
