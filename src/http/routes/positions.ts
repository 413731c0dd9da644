import Router from '@koa/router';
import type { Runtime } from '../../main/runtime.js';
import { updateTechnicianPosition } from '../../geo/positions.js';
import { apiKeyAuth } from '../auth/index.js';
import type { AppState } from '../context.js';

/** PUT /posicion-tecnico {dniTecnico, latitud, longitud, disponible?}: a central reports one of its technicians. */
export function positionRoutes(rt: Runtime): Router<AppState> {
  const router = new Router<AppState>();
  router.put('/posicion-tecnico', apiKeyAuth(() => rt.orm.em, '/posicion-tecnico'), async (ctx) => {
    const { status, body } = await updateTechnicianPosition(rt, ctx.state.apiUser!, ctx.request.body);
    ctx.status = status;
    ctx.body = body;
  });
  return router;
}
