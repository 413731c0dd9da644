/**
 * Every route the service serves, grouped as the app mounts them. The
 * operations of src/api with a transport-neutral handler are mounted as they
 * are; the few that need request facts (cookies, HTML pages, the login form,
 * files) are bound here by their Koa-shaped modules.
 */
import { OPERATIONS } from '../../api/operations.js';
import type { Runtime } from '../../domain/ports.js';
import { operationRoutes, type Route } from '../mount.js';
import { adminLoginRoutes } from './adminLogin.js';
import { assetRoutes } from './assets.js';
import { consoleRoutes } from './console.js';
import { CONSOLE_PATH } from '../views/consolePage.js';
import { docsRoutes } from './docs.js';
import { healthRoutes } from './health.js';
import { metricsRoutes } from './metrics.js';
import { userRoutes } from './users.js';

/** Served before the operator pages and body parsing: health, the API documents, the metrics and the pages' map module. */
export function systemRoutes(rt: Runtime): Route[] {
  return [...healthRoutes(rt), ...docsRoutes(rt), ...metricsRoutes(rt), ...assetRoutes()];
}

/** The operators' login form (form bodies, parsed by its own route) and the operator console. */
export function adminRoutes(rt: Runtime): Route[] {
  return [...adminLoginRoutes(rt, CONSOLE_PATH), ...consoleRoutes(rt)];
}

/** Every route under /api/v3 (JSON bodies): the login (Koa-shaped: a cookie, the per-IP limit) and every transport-neutral operation. */
export function apiRoutes(rt: Runtime): Route[] {
  return [...userRoutes(rt), ...operationRoutes(rt, OPERATIONS.filter((op) => op.handle))];
}
