/**
 * Every route the service serves, grouped as the app mounts them; one line per
 * module. Each module binds handlers to the declarations of
 * src/http/openapi/operations.ts, which the OpenAPI document describes.
 */
import type { Runtime } from '../../domain/ports.js';
import { docsRoutes } from '../openapi/docs.js';
import type { Route } from '../openapi/router.js';
import { BOARD_PATH } from './admin.js';
import { adminLoginRoutes } from './adminLogin.js';
import { finalizeRoutes } from './finalize.js';
import { healthRoutes } from './health.js';
import { historyRoutes } from './history.js';
import { offerRoutes } from './offers.js';
import { operationRoutes } from './operations.js';
import { positionRoutes } from './positions.js';
import { progressRoutes } from './progress.js';
import { recipientRoutes } from './recipients.js';
import { typesRoutes } from './types.js';
import { userRoutes } from './users.js';
import { chatRoutes } from './chat.js';
import { consoleRoutes } from './console.js';
import { deliveryRoutes } from './deliveries.js';
import { metricsRoutes } from './metrics.js';
import { trackingRoutes } from './tracking.js';

/** Served before the operator pages and body parsing: health, the API documents and the metrics. */
export function systemRoutes(rt: Runtime): Route[] {
  return [...healthRoutes(rt), ...docsRoutes(rt), ...metricsRoutes(rt)];
}

/** The operators' login form (form bodies, parsed by its own route) and the operator console. */
export function adminRoutes(rt: Runtime): Route[] {
  return [...adminLoginRoutes(rt, BOARD_PATH), ...consoleRoutes(rt)];
}

/** Every route under /api/v3 (JSON bodies). */
export function apiRoutes(rt: Runtime): Route[] {
  return [
    ...typesRoutes(rt),
    ...userRoutes(rt),
    ...offerRoutes(rt),
    ...positionRoutes(rt),
    ...recipientRoutes(rt),
    ...operationRoutes(rt),
    ...progressRoutes(rt),
    ...finalizeRoutes(rt),
    ...historyRoutes(rt),
    ...deliveryRoutes(rt),
    ...trackingRoutes(rt),
    ...chatRoutes(rt),
  ];
}
