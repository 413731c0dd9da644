/**
 * POST /tecnicos/token (D20): a central's key and one of its ACTIVO
 * technicians' documents in, that technician's own bearer token out, for 12
 * hours (TECHNICIAN_TOKEN_TTL_S). Answered in the key envelope of the routes
 * its key authenticates (spec 5.2). Any central may call it, whatever its
 * profile's endpoint list: it names only its own technicians.
 */
import type { ErrorObject } from 'ajv';
import { TECHNICIAN_AUTH_MESSAGES } from '../../auth/technician.js';
import { TECHNICIAN_TOKEN_MESSAGES, issueTechnicianToken } from '../../auth/technicianToken.js';
import { KeyError, str } from '../document/components.js';
import { API, apiUserOf, named, operation } from '../operation.js';

export const TECHNICIAN_TOKEN_ROUTE_MESSAGES = {
  dni: "EL CAMPO 'dniTecnico' ES REQUERIDO",
  failure: 'ERROR AL EMITIR EL TOKEN DEL TÉCNICO',
} as const;

const M = TECHNICIAN_TOKEN_ROUTE_MESSAGES;
const keyBody = (msg: string) => ({ status: false, msg, timestamp: '2026-11-24T05:00:00.000Z' });

export const TechnicianTokenInput = named('TechnicianTokenInput', {
  type: 'object',
  required: ['dniTecnico'],
  properties: { dniTecnico: { type: 'string', minLength: 1, maxLength: 64 } },
} as const);

export const TechnicianToken = named('TechnicianToken', {
  type: 'object',
  required: ['token', 'expiresAt'],
  properties: {
    token: str(64, { pattern: '^tec_[A-Za-z0-9_-]{43}$' }),
    expiresAt: str(64, { format: 'date-time' }),
  },
} as const);

export const issueTechnicianTokenOp = operation({
  method: 'post',
  path: `${API}/tecnicos/token`,
  operationId: 'issueTechnicianToken',
  summary: 'A central issues one of its technicians its own bearer token (D20)',
  description:
    'The token (12 hours) opens that technician’s socket (`Authorization: Bearer <token>`), reports its position and progress, reaches the chat of its assigned service and reads its own work (GET /tecnicos/servicios), and nothing of its colleagues’. It is refused at once when the technician or its central’s API user becomes INACTIVO or the central’s key changes; open sockets using it close within a minute.',
  tag: 'Proveedores',
  auth: 'apiKey',
  endpointGated: false,
  envelope: 'key',
  input: { schema: TechnicianTokenInput, from: 'json' },
  invalid: { message: (_e: ErrorObject) => M.dni },
  failure: M.failure,
  responses: {
    200: { description: 'The technician’s token and its expiry', schema: TechnicianToken, examples: { ok: { token: 'tec_' + 'A'.repeat(43), expiresAt: '2026-11-24T17:00:00.000Z' } } },
    400: { description: 'dniTecnico missing or invalid', schema: KeyError, examples: { dni: keyBody(M.dni), unstorable: keyBody(TECHNICIAN_AUTH_MESSAGES.dniUnstorable) } },
    403: { description: 'The technician is INACTIVO', schema: KeyError, examples: { inactive: keyBody(TECHNICIAN_TOKEN_MESSAGES.inactive) } },
    404: { description: 'No technician with that document among the central’s (another central’s included)', schema: KeyError, examples: { unknown: keyBody(TECHNICIAN_AUTH_MESSAGES.technicianUnknown) } },
    500: { description: 'Failure', schema: KeyError, examples: { failure: keyBody(M.failure) } },
  },
  handle: async (rt, caller, input) => {
    const { token, expiresAt } = await issueTechnicianToken(rt.orm.em.fork(), apiUserOf(caller), input.dniTecnico, rt.config.technicianTokenTtlS);
    return { token, expiresAt: expiresAt.toISOString() };
  },
});
