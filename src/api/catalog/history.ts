/** POST /queries/history and GET /queries/history-options (spec 4.6, 4.7, D7). */
import { MAX_PAGE, MAX_PAGE_SIZE, queryHistory as query } from '../../domain/history/history.js';
import { historyOptions as options } from '../../domain/history/options.js';
import { OFFER_STATES } from '../../domain/offers/lifecycle/states.js';
import { str } from '../document/components.js';
import { controller, msg, pageTooDeep } from '../document/responses.js';
import { MAX_LIST_DEPTH } from '../../limits.js';
import { API, apiUserOf, named, operation } from '../operation.js';
import { fieldMessages } from '../validation.js';

export const HISTORY_MESSAGES = {
  ok: 'Datos obtenidos correctamente',
  missingLine: 'La línea de negocio es requerida.',
  unknownLine: 'La línea de negocio no existe.',
} as const;

const HISTORY_MESSAGES_FAILED = 'Ocurrió un error al obtener los datos.';

/** A day, or an instant whose seconds a Date can hold: RFC 3339 allows a leap second (`:60`), JavaScript does not. */
const instant = { type: 'string', maxLength: 40, anyOf: [{ format: 'date' }, { format: 'date-time', pattern: 'T\\d{2}:\\d{2}:[0-5]\\d' }] } as const;

export const HistoryInput = named('HistoryInput', {
  type: 'object',
  required: ['line'],
  properties: {
    line: { type: 'string', minLength: 1, maxLength: 64 },
    autNumber: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string', maxLength: 64 }] },
    estado: { type: 'string', maxLength: 20, enum: OFFER_STATES },
    desde: instant,
    hasta: instant,
    // bounded so that (page - 1) * pageSize stays an exact bigint offset
    page: { type: 'integer', minimum: 1, maximum: MAX_PAGE },
    pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
  },
} as const);

const historyMessages = fieldMessages({
  line: (e) => (e.keyword === 'required' ? HISTORY_MESSAGES.missingLine : 'La línea de negocio no es válida.'),
  estado: 'El estado no es válido; los estados están en GET /queries/history-options.',
  desde: 'La fecha desde debe tener el formato AAAA-MM-DD o ser una fecha y hora ISO 8601.',
  hasta: 'La fecha hasta debe tener el formato AAAA-MM-DD o ser una fecha y hora ISO 8601.',
  page: `La página debe ser un entero entre 1 y ${MAX_PAGE}.`,
  pageSize: `El tamaño de página debe ser un entero entre 1 y ${MAX_PAGE_SIZE}.`,
  autNumber: 'El número de referencia (autNumber) no es válido.',
});

export const queryHistory = operation({
  method: 'post',
  path: `${API}/queries/history`,
  operationId: 'queryHistory',
  summary: 'The caller’s services of a business line (spec 4.6, D7)',
  tag: 'Consultas',
  auth: 'basic',
  envelope: 'controller',
  input: { schema: HistoryInput, from: 'json' },
  invalid: { message: historyMessages },
  failure: HISTORY_MESSAGES_FAILED,
  responses: {
    200: {
      description: 'One page of records',
      schema: {
        type: 'object',
        required: ['status', 'data', 'msg'],
        properties: {
          status: { const: true },
          msg,
          data: {
            type: 'array',
            items: {
              type: 'object',
              required: ['idServicio', 'estado', 'prestador'],
              properties: { idServicio: str(36), estado: str(20), prestador: { anyOf: [str(255), { type: 'null' }] } },
            },
          },
          pagination: {
            type: 'object',
            required: ['page', 'pageSize', 'total'],
            properties: { page: { type: 'integer' }, pageSize: { type: 'integer' }, total: { type: 'integer' } },
          },
        },
      },
      examples: { ok: { status: true, data: [], msg: HISTORY_MESSAGES.ok, pagination: { page: 1, pageSize: 50, total: 0 } } },
    },
    400: controller(`Missing or unknown business line, invalid filter; or a page whose last record lies beyond the first ${MAX_LIST_DEPTH} (LIM-6: page × pageSize ≤ ${MAX_LIST_DEPTH}; narrow the query with desde/hasta)`, {
      missingLine: HISTORY_MESSAGES.missingLine,
      deep: pageTooDeep(MAX_LIST_DEPTH / 50, MAX_LIST_DEPTH),
    }),
    500: controller('Failure', { failure: HISTORY_MESSAGES_FAILED }),
  },
  handle: async (rt, caller, input) => {
    const p = await query(rt.orm.em.fork(), apiUserOf(caller).id, input, rt.config.localUtcOffset);
    return { status: true, data: p.records, msg: HISTORY_MESSAGES.ok, pagination: p.pagination };
  },
});

const idName = (id: string) => ({ type: 'array', items: { type: 'object', required: [id, 'name'], properties: { [id]: str(255), name: str(255) } } }) as const;

export const historyOptions = operation({
  method: 'get',
  path: `${API}/queries/history-options`,
  operationId: 'historyOptions',
  summary: 'The filters of the history query (spec 4.7)',
  tag: 'Consultas',
  auth: 'basic',
  envelope: 'controller',
  failure: HISTORY_MESSAGES_FAILED,
  responses: {
    200: {
      description: 'States and centrals',
      schema: {
        type: 'object',
        required: ['status', 'data'],
        properties: {
          status: { const: true },
          data: {
            type: 'object',
            required: ['taskStatus', 'serviceStatus', 'businessNits'],
            properties: { taskStatus: idName('id'), serviceStatus: idName('id'), businessNits: idName('nit') },
          },
        },
      },
    },
    500: controller('Failure', { failure: HISTORY_MESSAGES_FAILED }),
  },
  handle: async (rt) => ({ status: true, data: await options(rt.orm.em.fork()) }),
});
