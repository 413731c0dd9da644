import type Router from '@koa/router';
import type { Runtime } from '../../main/runtime.js';
import type { AppState } from '../context.js';
import { offerRoutes } from './offers.js';
import { typesRoutes } from './types.js';
import { userRoutes } from './users.js';

/** Every router under /api/v3; one line per module. */
export function apiRouters(rt: Runtime): Router<AppState>[] {
  return [typesRoutes(rt), userRoutes(rt), offerRoutes(rt)];
}
