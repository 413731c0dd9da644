import type { ApiEndpointMap, ApiUser } from '../db/entities/index.js';

/**
 * `{url_api}{api_endpoint.<key>}` of an API profile (spec 6.1, D12), joined
 * with exactly one slash; null when either part is missing.
 */
export function profileEndpoint(user: Pick<ApiUser, 'urlApi' | 'apiEndpoint'>, key: keyof ApiEndpointMap): string | null {
  const base = user.urlApi?.trim();
  const path = user.apiEndpoint?.[key]?.trim();
  if (!base || !path) return null;
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
