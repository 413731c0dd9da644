/** POST /asignacion-directa (spec 4.8, D6): the body of POST /oferta plus the central's (and technician's) tax id. */
import type { ErrorObject } from 'ajv';
import { offerErrorMessage, offerSchema } from '../offers/createOffer.js';
import { assignDirectly as assign } from '../../domain/offers/operations/directAssignment.js';
import { str } from '../document/components.js';
import { done, geocoderUnavailable } from '../document/responses.js';
import { GEOCODER_UNAVAILABLE } from '../../geocoding/geocoder.js';
import { API, apiUserOf, named, operation } from '../operation.js';
import { fieldOf } from '../validation.js';
import { operationErrors } from './common.js';
import { quotaExceeded, takeOfferQuota } from '../offers/quota.js';

export const DIRECT_MESSAGES = {
  ok: (central: string) => `SE HA REGISTRADO EXITOSAMENTE LA ASIGNACIÓN DIRECTA DEL SERVICIO A LA CENTRAL ${central}`,
  centralMissing: "EL CAMPO 'dniPrestador' ES REQUERIDO PARA REALIZAR LA ASIGNACIÓN DIRECTA",
  centralInvalid: "EL CAMPO 'dniPrestador' NO ES VÁLIDO",
  technicianInvalid: "EL CAMPO 'dniTecnico' NO ES VÁLIDO",
  unknownCentral: (nit: string) => `NO SE ENCONTRÓ LA CENTRAL (PRESTADOR) CON NIT ${nit}`,
  unknownTechnician: 'NO SE ENCONTRÓ EL TÉCNICO',
  typeNotServed: (central: string, type: string) => `LA CENTRAL ${central} NO PRESTA EL SERVICIO ${type}`,
} as const;

const FAILURE = 'OCURRIÓ UN ERROR AL PROCESAR LA ASIGNACIÓN DIRECTA DEL SERVICIO';

/** The body of POST /oferta (spec 2.1, same order of checks) plus the central's and technician's tax ids. */
export const DirectAssignmentInput = named('DirectAssignmentInput', {
  type: 'object',
  allOf: [
    ...offerSchema.allOf,
    {
      required: ['dniPrestador'],
      properties: {
        dniPrestador: { type: 'string', minLength: 1, maxLength: 32 },
        dniTecnico: { type: 'string', minLength: 1, maxLength: 32 },
      },
    },
  ],
} as const);

/** The messages of POST /oferta (spec 4.1), and those of the tax ids. */
export function directAssignmentMessage(e: ErrorObject): string {
  const field = fieldOf(e);
  if (field === 'dniPrestador') return e.keyword === 'required' ? DIRECT_MESSAGES.centralMissing : DIRECT_MESSAGES.centralInvalid;
  if (field === 'dniTecnico') return DIRECT_MESSAGES.technicianInvalid;
  return offerErrorMessage(e);
}

export const assignDirectly = operation({
  method: 'post',
  path: `${API}/asignacion-directa`,
  operationId: 'assignDirectly',
  summary: 'Assign a service directly to a named central (spec 4.8, D6)',
  tag: 'Servicio',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: DirectAssignmentInput, from: 'json' },
  invalid: { message: directAssignmentMessage },
  failure: FAILURE,
  responses: {
    200: done('Assigned', DIRECT_MESSAGES.ok('Grúas del Norte'), { codigoServicio: str(32), codigoSolicitud: str(32) }, { codigoServicio: 'SV-7K3M9Q', codigoSolicitud: 'SL-4HX2PD' }),
    ...operationErrors(FAILURE),
    429: quotaExceeded,
    503: geocoderUnavailable(GEOCODER_UNAVAILABLE),
  },
  handle: async (rt, caller, input) => {
    await takeOfferQuota(rt, apiUserOf(caller));
    const r = await assign(rt, apiUserOf(caller), input);
    return { status: true, msg: DIRECT_MESSAGES.ok(r.centralName), codigoServicio: r.codigoServicio, codigoSolicitud: r.codigoSolicitud };
  },
});
