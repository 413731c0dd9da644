import type Router from '@koa/router';
import type { Runtime } from '../../main/runtime.js';
import type { AppState } from '../context.js';
import { positionRoutes } from './positions.js';
import { recipientRoutes } from './recipients.js';
import { finalizeRoutes } from './finalize.js';
import { historyRoutes } from './history.js';
import { operationRoutes } from './operations.js';
import { progressRoutes } from './progress.js';
import { offerRoutes } from './offers.js';
import { typesRoutes } from './types.js';
import { userRoutes } from './users.js';

/** Every router under /api/v3; one line per module. */
export function apiRouters(rt: Runtime): Router<AppState>[] {
  return [
    typesRoutes(rt),
    userRoutes(rt),
    offerRoutes(rt),
    positionRoutes(rt),
    recipientRoutes(rt),
    operationRoutes(rt),
    progressRoutes(rt),
    finalizeRoutes(rt),
    historyRoutes(rt),
  ];
}
