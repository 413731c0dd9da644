/** POST /queries/history and GET /queries/history-options (spec 4.6, 4.7, D7). */
import { HISTORY_MESSAGES, MAX_PAGE, MAX_PAGE_SIZE, queryHistory as query } from '../../domain/history/history.js';
import { historyOptions as options } from '../../domain/history/options.js';
import type { Runtime } from '../../domain/ports.js';
import { apiUserOf } from '../caller.js';
import { historyOptions, queryHistory } from '../openapi/operations.js';
import { route, type Route } from '../openapi/router.js';
import { historyBody, historyOptionsBody } from '../presenters/operations.js';
import { fieldMessages } from '../schemas/operations.js';

const historyMessages = fieldMessages({
  line: (e) => (e.keyword === 'required' ? HISTORY_MESSAGES.missingLine : 'La línea de negocio no es válida.'),
  estado: 'El estado no es válido; los estados están en GET /queries/history-options.',
  desde: 'La fecha desde debe tener el formato AAAA-MM-DD o ser una fecha y hora ISO 8601.',
  hasta: 'La fecha hasta debe tener el formato AAAA-MM-DD o ser una fecha y hora ISO 8601.',
  page: `La página debe ser un entero entre 1 y ${MAX_PAGE}.`,
  pageSize: `El tamaño de página debe ser un entero entre 1 y ${MAX_PAGE_SIZE}.`,
  autNumber: 'El número de referencia (autNumber) no es válido.',
});

export function historyRoutes(rt: Runtime): Route[] {
  return [
    route(queryHistory, async (ctx, input) => historyBody(await query(rt.orm.em.fork(), apiUserOf(ctx).id, input, rt.config.localUtcOffset)), {
      invalid: { message: historyMessages },
    }),
    route(historyOptions, async () => historyOptionsBody(await options(rt.orm.em.fork()))),
  ];
}
