/** PUT /estado-servicio (D11): a central reports progress with its API key; envelope {status, data} as PUT /aceptacion. */
import { progressMessage, reportServiceProgress } from '../../domain/offers/operations/progress.js';
import type { Runtime } from '../../domain/ports.js';
import { apiUserOf } from '../caller.js';
import { reportProgress } from '../openapi/operations.js';
import { route, type Route } from '../openapi/router.js';
import { progressBody } from '../presenters/progress.js';

export function progressRoutes(rt: Runtime): Route[] {
  return [
    route(reportProgress, async (ctx, input) => progressBody(await reportServiceProgress(rt, apiUserOf(ctx), input)), {
      invalid: { message: progressMessage },
    }),
  ];
}
