/** POST /queries/history and GET /queries/history-options (spec 4.6, 4.7, D7). */
import Router from '@koa/router';
import { HISTORY_MESSAGES, MAX_PAGE, MAX_PAGE_SIZE, queryHistory } from '../../domain/history/history.js';
import { historyOptions } from '../../domain/history/options.js';
import type { Runtime } from '../../main/runtime.js';
import { basicAuth } from '../auth/index.js';
import { apiUserOf } from '../caller.js';
import type { AppState } from '../context.js';
import { failureMessage } from '../middleware/failure.js';
import { OPERATION_MESSAGES, historyBody, historyOptionsBody } from '../presenters/operations.js';
import { fieldMessages, historySchema } from '../schemas/operations.js';
import { validateBody } from '../validation.js';

const historyMessages = fieldMessages({
  line: (e) => (e.keyword === 'required' ? HISTORY_MESSAGES.missingLine : 'La línea de negocio no es válida.'),
  estado: 'El estado no es válido; los estados están en GET /queries/history-options.',
  desde: 'La fecha desde debe tener el formato AAAA-MM-DD o ser una fecha y hora ISO 8601.',
  hasta: 'La fecha hasta debe tener el formato AAAA-MM-DD o ser una fecha y hora ISO 8601.',
  page: `La página debe ser un entero entre 1 y ${MAX_PAGE}.`,
  pageSize: `El tamaño de página debe ser un entero entre 1 y ${MAX_PAGE_SIZE}.`,
  autNumber: 'El número de referencia (autNumber) no es válido.',
});

export function historyRoutes(rt: Runtime): Router<AppState> {
  const router = new Router<AppState>();
  const em = () => rt.orm.em;
  const failed = failureMessage(rt.log, OPERATION_MESSAGES.historyFailed);

  router.post('/queries/history', failed, basicAuth(em, '/queries/history'), async (ctx) => {
    const body = validateBody(historySchema, ctx.request.body, historyMessages);
    ctx.body = historyBody(await queryHistory(rt.orm.em, apiUserOf(ctx).id, body, rt.config.localUtcOffset));
  });

  router.get('/queries/history-options', failed, basicAuth(em, '/queries/history-options'), async (ctx) => {
    ctx.body = historyOptionsBody(await historyOptions(rt.orm.em));
  });

  return router;
}
