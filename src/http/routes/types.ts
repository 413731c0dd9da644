/** GET /types (spec 4.5): a bare array of service types; a 200 also checks the credentials. */
import { listServiceTypes as list } from '../../domain/catalog/serviceTypes.js';
import type { Runtime } from '../../domain/ports.js';
import { listServiceTypes } from '../openapi/operations.js';
import { route, type Route } from '../openapi/router.js';

export function typesRoutes(rt: Runtime): Route[] {
  return [route(listServiceTypes, () => list(rt.orm.em.fork()))];
}
