/** The unknown-route answer of the API (spec 4.9, 7.3), naming its version prefix. */
import { API } from './operation.js';

/** The unknown-route body (spec 4.9, 7.3); also answered to a socket upgrade on an unknown path. */
export function routeNotFoundBody(method: string, path: string): Record<string, unknown> {
  return {
    error: 'Ruta no encontrada',
    message: `La ruta ${method} ${path} no existe en esta API`,
    documentation: `${API}/docs`,
    suggestion: `Verifique la ruta y el método; las rutas vigentes empiezan por ${API}`,
    available_versions: {
      v1: '/api/v1 (obsoleta, redirige a /api/v3)',
      v2: '/api/v2 (en desuso, redirige a /api/v3)',
      v3: '/api/v3 (vigente)',
    },
    requested_path: path,
    method,
    timestamp: new Date().toISOString(),
  };
}
