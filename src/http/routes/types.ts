import Router from '@koa/router';
import type { Runtime } from '../../main/runtime.js';
import { basicAuth } from '../auth/index.js';
import type { AppState } from '../context.js';
import { listServiceTypes } from '../../domain/catalog/serviceTypes.js';

/** GET /types (spec 4.5): a bare array of service types; a 200 also checks the credentials. */
export function typesRoutes(rt: Runtime): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/types', basicAuth(() => rt.orm.em, '/types'), async (ctx) => {
    ctx.body = await listServiceTypes(rt.orm.em);
  });
  return router;
}
